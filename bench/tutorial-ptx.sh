#!/usr/bin/env bash
# PTX of the GPU tutorials' tensor-core kernels at the configurations they run (attention forward
# at every tile shape, stage and warp count the autotuner tries, for head dims 64 and 128; the
# tutorial 03 autotune configs; the block-pointer and batched matmuls), for comparing two builds
# without a GPU: which kernels a change touches, and whether only the order of instructions moved.
# Usage: bench/tutorial-ptx.sh OUT_DIR [TRITIUM]       (TRITIUM: default target/release/tritium)
#        bench/tutorial-ptx.sh --compare DIR_A DIR_B    (per kernel: same, reorder, or changed)
set -euo pipefail
cd "$(dirname "$0")/.."
histogram() {
  grep -v '^\s*\.loc\|^\s*//\|^\s*\$L' "$1" | awk '{print $1}' | sed 's/^@%p[0-9]*/@p/' | sort | uniq -c
}
if [ "${1:-}" = "--compare" ]; then
  for a in "$2"/*.ptx; do
    b="$3/$(basename "$a")"
    if cmp -s "$a" "$b"; then echo "same     $(basename "$a" .ptx)"
    elif diff <(histogram "$a") <(histogram "$b") >/dev/null; then echo "reorder  $(basename "$a" .ptx)"
    else echo "changed  $(basename "$a" .ptx): $(diff <(histogram "$a") <(histogram "$b") | grep '^[<>]' | tr -s ' ' | tr '\n' ';')"
    fi
  done
  exit 0
fi
out=${1:?usage: bench/tutorial-ptx.sh OUT_DIR [TRITIUM]}
tritium=${2:-target/release/tritium}
rm -rf "$out"; mkdir -p "$out"
p16="*fp16:16"; p32="*fp32:16"; strides="i32:16, i32:16, i32:16, 1"
compile() { # file kernel signature warps stages name
  "$tritium" compile "python/tests/gpu/$1.py" -n "$2" -s "$3" -w "$4" --num-stages "$5" \
    --out-name "$6" -o "$out" >/dev/null || echo "failed: $6"
}
for d in 64 128; do for tile in "128 64" "128 32" "64 64" "64 32"; do set -- $tile
  for stage in 1 3; do for warps in 4 8; do
    compile t06_fused_attention _attn_fwd "$p16, $p16, $p16, fp32, $p32, $p16, $strides, $strides, \
$strides, $strides, i32, i32, 4096, $d, $1, $2, $stage" "$warps" 3 "attn_d${d}_$1x$2_stage${stage}_w$warps"
  done; done
done; done
matmul="$p16, $p16, $p16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"
compile matmul_variants block_ptr_matmul_kernel "$matmul, 128, 256, 64" 8 3 block_ptr_matmul
compile matmul_variants batched_matmul_kernel "$p16, $p16, $p16, i32:16, i32:16, i32:16, i32:16, \
i32:16, 1, i32:16, i32:16, 1, i32:16, i32:16, 1, 128, 256, 64" 8 3 batched_matmul
for config in "128 256 64 8 3" "64 256 32 4 4" "128 128 32 4 4" "128 64 32 4 4" "64 128 32 4 4" \
              "128 32 32 4 4" "64 32 32 2 5" "32 64 32 2 5"; do set -- $config
  compile t03_matmul matmul_kernel "$matmul, $1, $2, $3, 8, \"\"" "$4" "$5" "matmul_$1x$2x$3_w$4_s$5"
done
for flatten in True False; do
  compile t11_persistent_matmul matmul_persistent_kernel "$matmul, 128, 256, 64, 8, 132, $flatten" 8 3 \
    "persistent_matmul_flatten_$flatten"
done
ls "$out"/*.ptx | wc -l
