#!/usr/bin/env bash
# Builds bench/kernels/bulk_rows.cu to PTX with the system clang (LLVM 22, no CUDA toolkit) and
# writes .device/ptx_cu{plain,bulk,bulk2,pair}/ under the corpus cases' names, for
#   python3 bench/ptx-variants.py argmax_rows,rmsnorm_fwd_bf16,softmax_w4096_bf16 ptx_corpus \
#     ptx_cuplain ptx_cubulk ptx_cubulk2 ptx_cupair
# on the GPU machine (carry .device): plain vector loads, the row through one TMA bulk copy, and
# (rmsnorm) the result out through one too; softmax with two cross-warp exchanges or one.
set -eu
cd "$(dirname "$0")/.."
ptx=$(mktemp)
/usr/lib/llvm-22/bin/clang++ -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_90a \
  -Xclang -target-feature -Xclang +ptx84 -O3 -S -std=c++17 bench/kernels/bulk_rows.cu -o "$ptx"
emit() { # DIR CASE KERNEL DYNAMIC_SHARED_BYTES
  mkdir -p ".device/$1"
  cp "$ptx" ".device/$1/$2.ptx"
  printf '{"name": "%s", "num_warps": 8, "shared": %s}\n' "$3" "$4" > ".device/$1/$2.json"
}
emit ptx_cuplain argmax_rows argmax_plain 0
emit ptx_cuplain rmsnorm_fwd_bf16 rmsnorm_plain 0
emit ptx_cubulk argmax_rows argmax_bulk 16000
emit ptx_cubulk rmsnorm_fwd_bf16 rmsnorm_bulk 8192
emit ptx_cubulk2 rmsnorm_fwd_bf16 rmsnorm_bulk2 8192
emit ptx_cuplain softmax_w4096_bf16 softmax_plain 0
emit ptx_cupair softmax_w4096_bf16 softmax_pair 0
rm -f "$ptx"
echo "wrote .device/ptx_cuplain .device/ptx_cubulk .device/ptx_cubulk2 .device/ptx_cupair"
