"""Programmatic dependent launch, in the style of Triton's tutorial on it (only the imports differ
between the two compilers): a chain of vector additions, each launched with `launch_pdl=True`
so it may start while the previous one finishes, its loads behind `tl.extra.cuda.gdc_wait()`
(which waits for the previous kernel's writes) and `gdc_launch_dependents()` letting the next
one start. Each chain is checked against PyTorch with the outputs poisoned first (a missing
wait reads a poisoned or stale input); the chain is timed with and without PDL, against Triton."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, USE_GDC: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    if USE_GDC:
        # Everything before this may overlap the previous kernel; the loads may not.
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x, y, out, pdl):
    n = out.numel()
    grid = lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024, USE_GDC=pdl, launch_pdl=pdl)


def chain(x, y, outs, pdl):
    """outs[0] = x + y, outs[i] = outs[i - 1] + y: each kernel reads what the previous wrote."""
    add(x, y, outs[0], pdl)
    for i in range(1, len(outs)):
        add(outs[i - 1], y, outs[i], pdl)


def run():
    results = []
    torch.manual_seed(0)
    for pdl in (False, True):
        for n in (1000, 1 << 20, 1 << 24):
            x = torch.randn(n, device=DEVICE)
            y = torch.randn(n, device=DEVICE)
            outs = [torch.full_like(x, float("nan")) for _ in range(8)]
            chain(x, y, outs, pdl)
            want = x.double()
            err = 0.0
            for out in outs:
                want = want + y.double()
                err = max(err, (out.double() - want).abs().max().item())
            results.append(dict(case=f"add chain of 8, n={n}, launch_pdl={pdl}",
                                ok=err <= 1e-4 * want.abs().max().item(), err=err))
    for n in (1 << 16, 1 << 22):
        x = torch.randn(n, device=DEVICE)
        y = torch.randn(n, device=DEVICE)
        outs = [torch.empty_like(x) for _ in range(8)]
        for pdl in (False, True):
            ms = triton.testing.do_bench(lambda: chain(x, y, outs, pdl))
            results.append(dict(case=f"add chain of 8 bench n=2^{n.bit_length() - 1}, launch_pdl={pdl}", ok=True,
                                ms=ms, note=f"{ms * 1e3 / 8:.1f} us a kernel"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
