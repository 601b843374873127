"""Block-scaled matmul with `tl.dot_scaled` (microscaling formats e2m1, e4m3, e5m2 with e8m0
scales, bf16 and fp16 operands), checked against a float64 PyTorch reference on fresh random
inputs, output poisoned before each launch (only the imports changed for Triton)."""
import torch

import tritium as triton
import tritium.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def scaled_matmul_kernel(a_ptr, b_ptr, a_scale_ptr, b_scale_ptr, out_ptr, M, N, K,
                         stride_am, stride_bk, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         BLOCK_K: tl.constexpr, A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr,
                         HAS_A_SCALE: tl.constexpr, HAS_B_SCALE: tl.constexpr,
                         FAST_MATH: tl.constexpr, B_K_PACK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    PACK_A: tl.constexpr = 2 if A_FORMAT == "e2m1" else 1
    PACK_B_K: tl.constexpr = 2 if B_FORMAT == "e2m1" and B_K_PACK else 1
    PACK_B_N: tl.constexpr = 2 if B_FORMAT == "e2m1" and not B_K_PACK else 1
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_bn = pid_n * (BLOCK_N // PACK_B_N) + tl.arange(0, BLOCK_N // PACK_B_N)
    offs_ak = tl.arange(0, BLOCK_K // PACK_A)
    offs_bk = tl.arange(0, BLOCK_K // PACK_B_K)
    offs_s = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k // PACK_A + offs_ak)[None, :])
        b = tl.load(b_ptr + (k // PACK_B_K + offs_bk)[:, None] * stride_bk + offs_bn[None, :])
        a_scale = None
        b_scale = None
        if HAS_A_SCALE:
            a_scale = tl.load(a_scale_ptr + offs_m[:, None] * (K // 32) + (k // 32 + offs_s)[None, :])
        if HAS_B_SCALE:
            b_scale = tl.load(b_scale_ptr + offs_n[:, None] * (K // 32) + (k // 32 + offs_s)[None, :])
        acc = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, acc, fast_math=FAST_MATH,
                            rhs_k_pack=B_K_PACK)
    tl.store(out_ptr + offs_m[:, None] * N + offs_n[None, :], acc)


E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def make(fmt, shape, pack_dim):
    """A random operand in `fmt` (storage tensor, its float64 values); e2m1 packs two values a
    byte, low nibble first, along `pack_dim`."""
    if fmt == "e2m1":
        packed = list(shape)
        packed[pack_dim] //= 2
        raw = torch.randint(0, 256, packed, device=DEVICE, dtype=torch.uint8)
        lut = torch.tensor(E2M1, device=DEVICE, dtype=torch.float64)
        lo, hi = lut[(raw & 0xF).long()], lut[(raw >> 4).long()]
        return raw, torch.stack([lo, hi], dim=pack_dim + 1).flatten(pack_dim, pack_dim + 1)
    dtype = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "bf16": torch.bfloat16,
             "fp16": torch.float16}[fmt]
    values = torch.randn(shape, device=DEVICE).to(dtype)
    return values, values.double()


def scaled_matmul(a, b, a_scale, b_scale, M, N, K, a_format, b_format, fast_math=False,
                  b_k_pack=True, block=(128, 128, 64), num_warps=4, num_stages=3, out=None):
    BLOCK_M, BLOCK_N, BLOCK_K = block
    if out is None:
        out = torch.empty((M, N), device=DEVICE, dtype=torch.float32)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    scaled_matmul_kernel[grid](
        a, b, a_scale if a_scale is not None else a, b_scale if b_scale is not None else b,
        out, M, N, K, a.stride(0), b.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
        A_FORMAT=a_format, B_FORMAT=b_format, HAS_A_SCALE=a_scale is not None,
        HAS_B_SCALE=b_scale is not None, FAST_MATH=fast_math, B_K_PACK=b_k_pack,
        num_warps=num_warps, num_stages=num_stages)
    return out


def reference(a_values, b_values, a_scale, b_scale, fast_math):
    def factor(scale):
        f = torch.pow(2.0, scale.double() - 127).repeat_interleave(32, dim=1)
        return f if fast_math else torch.where(scale.repeat_interleave(32, dim=1) == 255,
                                               float("nan"), f)
    a = a_values if a_scale is None else a_values * factor(a_scale)
    b = b_values if b_scale is None else b_values * factor(b_scale).T
    return a @ b


CASES = [
    # (a_format, b_format, a scaled, b scaled, fast_math, b_k_pack, NaN scales)
    ("e4m3", "e4m3", True, True, False, True, False),
    ("e5m2", "e4m3", True, True, False, True, True),
    ("e2m1", "e4m3", True, True, False, True, False),
    ("e2m1", "e2m1", True, True, True, True, False),
    ("e4m3", "e2m1", True, True, False, False, False),
    ("bf16", "e2m1", False, True, False, True, False),
    ("fp16", "e4m3", False, True, False, True, True),
    ("bf16", "e5m2", True, False, True, True, False),
]


def run():
    results = []
    torch.manual_seed(0)
    M, N, K = 256, 384, 512
    for a_format, b_format, a_scaled, b_scaled, fast_math, b_k_pack, nans in CASES:
        name = (f"dot_scaled {a_format} x {b_format}{'' if b_k_pack else ' (b packed along N)'}"
                f"{' fast_math' if fast_math else ''}{' with 0xFF scales' if nans else ''}")
        try:
            a, a_values = make(a_format, (M, K), 1)
            b, b_values = make(b_format, (K, N), 0 if b_k_pack else 1)
            if a_format in ("e4m3", "e5m2"):
                a = a.view(torch.uint8)  # as raw bytes, which the front end bitcasts
            a_scale = (torch.randint(120, 135, (M, K // 32), device=DEVICE, dtype=torch.uint8)
                       if a_scaled else None)
            b_scale = (torch.randint(120, 135, (N, K // 32), device=DEVICE, dtype=torch.uint8)
                       if b_scaled else None)
            if nans:
                (a_scale if a_scale is not None else b_scale)[3, 1] = 255
            out = torch.full((M, N), 12345.0, device=DEVICE)
            scaled_matmul(a, b, a_scale, b_scale, M, N, K, a_format, b_format, fast_math,
                          b_k_pack, out=out)
            torch.cuda.synchronize()
            ref = reference(a_values, b_values, a_scale, b_scale, fast_math)
            got = out.double()
            same_nan = torch.equal(torch.isnan(got), torch.isnan(ref))
            finite = ~torch.isnan(ref)
            err = (got[finite] - ref[finite]).abs().max().item()
            bound = 1e-3 * ref[finite].abs().max().item()
            results.append(dict(case=name, ok=same_nan and err <= bound, err=err,
                                note=f"bound {bound:.3g}, NaNs {int(torch.isnan(got).sum())}"))
        except Exception as e:  # one failing format must not hide the others
            results.append(dict(case=name, ok=False, error=f"{type(e).__name__}: {e}"[:2000]))
    # The benchmark's tiles (two warpgroups, 128-wide K) and a ragged number of K steps.
    for a_format, b_format, block, warps, K in (("e4m3", "e4m3", (128, 128, 128), 8, 640),
                                                ("e2m1", "e4m3", (128, 128, 128), 8, 384),
                                                ("e5m2", "e2m1", (64, 128, 64), 4, 192)):
        name = f"dot_scaled {a_format} x {b_format} tiles {block} {warps} warps K={K}"
        try:
            M, N = 256, 256
            a, a_values = make(a_format, (M, K), 1)
            b, b_values = make(b_format, (K, N), 0)
            a_scale = torch.randint(120, 135, (M, K // 32), device=DEVICE, dtype=torch.uint8)
            b_scale = torch.randint(120, 135, (N, K // 32), device=DEVICE, dtype=torch.uint8)
            out = torch.full((M, N), 12345.0, device=DEVICE)
            scaled_matmul(a, b, a_scale, b_scale, M, N, K, a_format, b_format, block=block,
                          num_warps=warps, out=out)
            torch.cuda.synchronize()
            ref = reference(a_values, b_values, a_scale, b_scale, False)
            err = (out.double() - ref).abs().max().item()
            bound = 1e-3 * ref.abs().max().item()
            results.append(dict(case=name, ok=err <= bound, err=err, note=f"bound {bound:.3g}"))
        except Exception as e:
            results.append(dict(case=name, ok=False, error=f"{type(e).__name__}: {e}"[:2000]))
    for size in (4096,):
        try:
            a, _ = make("e4m3", (size, size), 1)
            b, _ = make("e4m3", (size, size), 0)
            a_scale = torch.randint(120, 135, (size, size // 32), device=DEVICE, dtype=torch.uint8)
            b_scale = torch.randint(120, 135, (size, size // 32), device=DEVICE, dtype=torch.uint8)
            fn = lambda: scaled_matmul(a, b, a_scale, b_scale, size, size, size, "e4m3", "e4m3",
                                       block=(128, 128, 128), num_warps=8, num_stages=3)
            ms = triton.testing.do_bench(fn)
            results.append(dict(case=f"dot_scaled bench e4m3 {size}^3", ok=True, ms=ms,
                                note=f"{2 * size ** 3 / ms * 1e-9:.0f} TFLOP/s"))
        except Exception as e:
            results.append(dict(case=f"dot_scaled bench e4m3 {size}^3", ok=False,
                                error=f"{type(e).__name__}: {e}"[:2000]))
    return results
