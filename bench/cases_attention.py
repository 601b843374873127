"""Tutorial 06's attention forward (`_attn_fwd`, block pointers, causal in two loops) at fixed
tile configurations, for ../shared/bench/harness.py (CASE_MODULES=cases_attention): every
config the tutorial's autotuner may pick is checked on its own against PyTorch (float32 SDPA on
the same fresh random inputs), causal and not, head dims 64 and 128.

Names: attn06_d{HEAD_DIM}_{BLOCK_M}x{BLOCK_N}_{c|n} (causal or not), 4 warps, 3 stages; N_CTX
1024, Z=1, H=4 (small: a correctness case first, timed too), or ATTN_SHAPE=Z,H,N_CTX (the PTX
must be compiled for that N_CTX, a constexpr: `bench/attention-ptx.sh`).
"""
import os
import sys

import torch
from harness import case, dev

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "gpu"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "tests", "gpu"))
from run_one import load  # noqa: E402

for _dir in sys.path[:2]:
    _path = os.path.join(_dir, "t06_fused_attention.py")
    if os.path.exists(_path):
        _tutorial = load(_path, "triton")
        break
KERNEL = _tutorial._attn_fwd.fn  # the autotuned kernel's own JIT function
Z, H, N_CTX = (int(x) for x in os.environ.get("ATTN_SHAPE", "1,4,1024").split(","))


def _attention(head_dim, block_m, block_n, causal):
    q, k, v = (torch.randn(Z, H, N_CTX, head_dim, device=dev, dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    m = torch.empty(Z, H, N_CTX, device=dev, dtype=torch.float32)
    scale = 0.5

    def ref():
        out = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                               is_causal=causal, scale=scale)
        return {"Out": out}

    args = dict(Q=q, K=k, V=v, sm_scale=scale, M=m, Out=o)
    for name, t in (("q", q), ("k", k), ("v", v), ("o", o)):
        for suffix, stride in zip("zhmk" if name in "qo" else ("zhnk" if name == "k" else "zhkn"), t.stride()):
            args[f"stride_{name}{suffix}"] = stride
    args["stride_on"] = args.pop("stride_ok")
    args.update(Z=Z, H=H)
    return dict(kernel=KERNEL, args=args,
                const=dict(N_CTX=N_CTX, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, STAGE=3 if causal else 1),
                grid=(N_CTX // block_m, Z * H), num_warps=4, num_stages=3, outs=["Out"], ref=ref,
                flops=4 * Z * H * N_CTX * N_CTX * head_dim * (0.5 if causal else 1.0), tol=1e-2)


for _d in (64, 128):
    for _bm, _bn in ((64, 32), (64, 64), (128, 32), (128, 64)):
        for _causal in (False, True):
            case(f"attn06_d{_d}_{_bm}x{_bn}_{'c' if _causal else 'n'}")(
                lambda d=_d, bm=_bm, bn=_bn, c=_causal: _attention(d, bm, bn, c))
