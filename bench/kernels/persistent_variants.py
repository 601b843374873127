"""Tutorial 11's unfused persistent matmul (`python/tests/gpu/t11_persistent_matmul.py`) in four
forms that differ only in how the K loop addresses and masks its operands, for
`bench/persistent-variants.py`: `recompute` forms each iteration's addresses and masks from
`ks = ki * BLOCK_K + offs_k` (the tutorial's form: `ks < K`); `increment` carries the pointer
tensors across iterations, advanced by `BLOCK_K * stride`, and masks with
`offs_k < K - ki * BLOCK_K` (tutorial 03's form); `recompute_kmask` recomputes the addresses but
masks as `increment` does; `increment_ksmask` carries the pointers but masks as `recompute`."""
import tritium as triton
import tritium.language as tl


@triton.jit
def _tile_position(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def _tile(tile_id, M, N, num_pid_in_group, num_pid_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
          GROUP_SIZE_M: tl.constexpr):
    # The tile's rows and columns, and the same clamped into the matrix (rows and columns past the
    # edge read row / column 0; their results are not stored).
    pid_m, pid_n = _tile_position(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_in = tl.max_contiguous(tl.multiple_of(tl.where(rows < M, rows, 0), BLOCK_M), BLOCK_M)
    cols_in = tl.max_contiguous(tl.multiple_of(tl.where(cols < N, cols, 0), BLOCK_N), BLOCK_N)
    return rows, cols, rows_in, cols_in


@triton.jit
def _store_tile(c_ptr, accumulator, rows, cols, M, N, stride_cm, stride_cn):
    c = accumulator.to(tl.float16)
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def persistent_recompute(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    offs_k = tl.arange(0, BLOCK_K)
    for tile_id in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS):
        rows, cols, rows_in, cols_in = _tile(tile_id, M, N, num_pid_in_group, num_pid_m, BLOCK_M, BLOCK_N,
                                             GROUP_SIZE_M)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            ks = ki * BLOCK_K + offs_k
            a = tl.load(a_ptr + rows_in[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=ks[None, :] < K, other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + cols_in[None, :] * stride_bn,
                        mask=ks[:, None] < K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
        _store_tile(c_ptr, accumulator, rows, cols, M, N, stride_cm, stride_cn)


@triton.jit
def persistent_increment(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    offs_k = tl.arange(0, BLOCK_K)
    for tile_id in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS):
        rows, cols, rows_in, cols_in = _tile(tile_id, M, N, num_pid_in_group, num_pid_m, BLOCK_M, BLOCK_N,
                                             GROUP_SIZE_M)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        a_ptrs = a_ptr + rows_in[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols_in[None, :] * stride_bn
        for ki in range(k_tiles):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - ki * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - ki * BLOCK_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        _store_tile(c_ptr, accumulator, rows, cols, M, N, stride_cm, stride_cn)


@triton.jit
def persistent_recompute_kmask(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                               GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    offs_k = tl.arange(0, BLOCK_K)
    for tile_id in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS):
        rows, cols, rows_in, cols_in = _tile(tile_id, M, N, num_pid_in_group, num_pid_m, BLOCK_M, BLOCK_N,
                                             GROUP_SIZE_M)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            ks = ki * BLOCK_K + offs_k
            a = tl.load(a_ptr + rows_in[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=offs_k[None, :] < K - ki * BLOCK_K, other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + cols_in[None, :] * stride_bn,
                        mask=offs_k[:, None] < K - ki * BLOCK_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
        _store_tile(c_ptr, accumulator, rows, cols, M, N, stride_cm, stride_cn)


@triton.jit
def persistent_increment_ksmask(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    offs_k = tl.arange(0, BLOCK_K)
    for tile_id in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS):
        rows, cols, rows_in, cols_in = _tile(tile_id, M, N, num_pid_in_group, num_pid_m, BLOCK_M, BLOCK_N,
                                             GROUP_SIZE_M)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        a_ptrs = a_ptr + rows_in[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols_in[None, :] * stride_bn
        for ki in range(k_tiles):
            ks = ki * BLOCK_K + offs_k
            a = tl.load(a_ptrs, mask=ks[None, :] < K, other=0.0)
            b = tl.load(b_ptrs, mask=ks[:, None] < K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        _store_tile(c_ptr, accumulator, rows, cols, M, N, stride_cm, stride_cn)
