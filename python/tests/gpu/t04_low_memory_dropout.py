"""Dropout with a seed instead of a stored mask, in the style of Triton's low-memory-dropout
tutorial (only the imports differ between the two compilers): each element keeps or drops by
`tl.rand(seed, offset)`, so the mask is recomputed from the seed, never stored. Checked against
an independent Philox 4x32-10 on the host (the keep mask exactly, the kept values to the
division's rounding), the same seed reproducing the same mask and another seed a different
one; timed against Triton."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    keep = tl.rand(seed, offsets) > p
    tl.store(out_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def seeded_dropout(x, p, seed, out=None):
    if out is None:
        out = torch.full_like(x, float("nan"))
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']), )
    seeded_dropout_kernel[grid](x, out, n, p, seed, BLOCK_SIZE=1024)
    return out


MASK32 = (1 << 32) - 1


def _mul_hi_lo(a, b):
    """The high and low 32 bits of a * b, for a 32-bit constant a and int64 tensors b < 2^32
    (the product needs 64 bits: computed from a's two 16-bit halves)."""
    a_lo, a_hi = a & 0xFFFF, a >> 16
    lo_part = a_lo * b
    hi_part = a_hi * b
    low = (lo_part + ((hi_part & 0xFFFF) << 16)) & MASK32
    high = (hi_part + (lo_part >> 16)) >> 16
    return high, low


def philox_uniform(seed, offsets):
    """tl.rand(seed, offsets) on the host: Philox 4x32 with 10 rounds on the counter
    (offset, 0, 0, 0) and the key (seed's low and high words); the first word, as a signed
    integer with negatives folded (-x - 1), times 2^-31 in fp32."""
    c0 = offsets & MASK32
    c1 = torch.zeros_like(c0)
    c2 = torch.zeros_like(c0)
    c3 = torch.zeros_like(c0)
    k0, k1 = seed & MASK32, (seed >> 32) & MASK32
    for _ in range(10):
        hi_b, lo_b = _mul_hi_lo(0xCD9E8D57, c2)
        hi_a, lo_a = _mul_hi_lo(0xD2511F53, c0)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0 = (k0 + 0x9E3779B9) & MASK32
        k1 = (k1 + 0xBB67AE85) & MASK32
    signed = torch.where(c0 >= (1 << 31), c0 - (1 << 32), c0)
    folded = torch.where(signed < 0, -signed - 1, signed)
    return folded.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32, device=offsets.device)


def run():
    results = []
    torch.manual_seed(0)
    p = 0.5
    for n in (1000, 98432):
        x = torch.randn(n, device=DEVICE)
        out = seeded_dropout(x, p, seed=123)
        keep = philox_uniform(123, torch.arange(n, device=DEVICE, dtype=torch.int64)) > p
        want = torch.where(keep, x / (1 - p), torch.zeros_like(x))
        mask_ok = bool(((out != 0) | (x == 0)).eq(keep | (x == 0)).all())
        err = (out - want).abs().max().item()
        results.append(dict(case=f"seeded dropout n={n}: the Philox reference's mask and values",
                            ok=mask_ok and err <= 1e-6 * x.abs().max().item(), err=err))
    x = torch.randn(1 << 16, device=DEVICE)
    a, b, c = seeded_dropout(x, p, 512), seeded_dropout(x, p, 512), seeded_dropout(x, p, 513)
    kept = (c != 0).float().mean().item()
    results.append(dict(case="seeded dropout: one seed, one mask; another seed, another",
                        ok=bool(torch.equal(a, b)) and not torch.equal(a, c) and abs(kept - (1 - p)) < 0.02,
                        note=f"kept fraction {kept:.3f}"))
    for size in (1 << 20, 1 << 26):
        x = torch.randn(size, device=DEVICE)
        out = torch.empty_like(x)
        ms = triton.testing.do_bench(lambda: seeded_dropout(x, p, 7, out))
        gbps = 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
        results.append(dict(case=f"seeded dropout bench n=2^{size.bit_length() - 1}", ok=True, ms=ms,
                            note=f"{gbps:.0f} GB/s"))
    return results


if __name__ == "__main__":
    for r in run():
        print(r)
