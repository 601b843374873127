"""Tensor-core cases for ../shared/bench/harness.py (CASE_MODULES=cases_visible,cases_dot).

Matmul in every element type the tensor-core lowering takes, at Triton's default pipelining and
with num_stages=1 (no pipelining on either side), masked odd shapes, and a flash-attention
forward kernel (dot -> softmax -> dot, the second A operand from registers). References are
float64 (matmul) or float32 PyTorch (attention) on the same fresh random inputs.
"""
import torch, triton, triton.language as tl
from harness import case, dev, rnd
from cases_visible import matmul_kernel


def _mm(M, N, K, dtype, cfg, out_dtype=None, tol=1e-2):
    if dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        a, b = rnd(M, K).to(dtype), rnd(K, N).to(dtype)
    else:
        a, b = rnd(M, K, dtype=dtype), rnd(K, N, dtype=dtype)
    c = torch.empty(M, N, device=dev, dtype=out_dtype or dtype)
    BM, BN, BK, nw, ns = cfg
    d = dict(kernel=matmul_kernel, args=dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=K, sam=a.stride(0), sak=a.stride(1),
             sbk=b.stride(0), sbn=b.stride(1), scm=c.stride(0), scn=c.stride(1)), const=dict(BM=BM, BN=BN, BK=BK, GROUP_M=8),
             grid=(triton.cdiv(M, BM) * triton.cdiv(N, BN),), num_warps=nw, num_stages=ns, outs=["c_ptr"],
             ref=lambda: {"c_ptr": a.double() @ b.double()}, flops=2 * M * N * K, tol=tol)
    if dtype in (torch.float16, torch.bfloat16, torch.float32):
        d["torch"] = lambda: a @ b
    return d


S = 4096
for ns in (1, 3):
    sfx = "" if ns == 1 else f"_s{ns}"
    case(f"mm_f16{sfx}")(lambda ns=ns: _mm(S, S, S, torch.float16, (128, 256, 64, 8, ns)))
    case(f"mm_f16_w4{sfx}")(lambda ns=ns: _mm(S, S, S, torch.float16, (128, 128, 64, 4, ns)))
    case(f"mm_bf16{sfx}")(lambda ns=ns: _mm(S, S, S, torch.bfloat16, (128, 256, 64, 8, ns)))
    case(f"mm_tf32{sfx}")(lambda ns=ns: _mm(S, S, S, torch.float32, (128, 128, 32, 8, ns)))
    case(f"mm_fp8{sfx}")(lambda ns=ns: _mm(S, S, S, torch.float8_e4m3fn, (128, 256, 128, 8, ns), torch.float16))
case("mm_f16_small")(lambda: _mm(512, 512, 512, torch.float16, (64, 64, 32, 4, 1)))
case("mm_f16_odd")(lambda: _mm(1000, 1000, 1000, torch.float16, (128, 128, 64, 4, 1)))


@triton.jit
def attn_fwd(Q, K, V, O, sm_scale, stride_qz, stride_qh, stride_qm, stride_kz, stride_kh, stride_kn,
             stride_vz, stride_vh, stride_vn, stride_oz, stride_oh, stride_om, H, N_CTX,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + off_z * stride_qz + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :])
    k_base = K + off_z * stride_kz + off_h * stride_kh
    v_base = V + off_z * stride_vz + off_h * stride_vh
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        k = tl.load(k_base + (start_n + offs_n)[None, :] * stride_kn + offs_d[:, None])
        qk = tl.dot(q, k) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + (start_n + offs_n)[:, None] * stride_vn + offs_d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(O + off_z * stride_oz + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(tl.float16))


def _attn(Z, H, N, D, BM, BN, nw, ns):
    q, k, v = (rnd(Z, H, N, D, dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    scale = D ** -0.5
    ref = lambda: {"O": torch.softmax((q.float() @ k.float().transpose(-1, -2)) * scale, -1) @ v.float()}
    return dict(kernel=attn_fwd, args=dict(Q=q, K=k, V=v, O=o, sm_scale=scale, stride_qz=q.stride(0), stride_qh=q.stride(1),
                stride_qm=q.stride(2), stride_kz=k.stride(0), stride_kh=k.stride(1), stride_kn=k.stride(2), stride_vz=v.stride(0),
                stride_vh=v.stride(1), stride_vn=v.stride(2), stride_oz=o.stride(0), stride_oh=o.stride(1), stride_om=o.stride(2),
                H=H, N_CTX=N), const=dict(BLOCK_M=BM, BLOCK_N=BN, HEAD_DIM=D), grid=(N // BM, Z * H), num_warps=nw,
                num_stages=ns, outs=["O"], ref=ref, flops=4 * Z * H * N * N * D, tol=1e-2,
                torch=lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale))


case("attn")(lambda: _attn(4, 16, 4096, 64, 128, 64, 4, 1))
case("attn_s3")(lambda: _attn(4, 16, 4096, 64, 128, 64, 4, 3))
case("attn_d128")(lambda: _attn(4, 16, 4096, 128, 128, 64, 8, 1))
