#!/usr/bin/env bash
# Compile-speed benchmark: TTIR -> PTX per kernel with a release `tritium`, median of N runs (one
# process per run: cold, including MLIR context creation and LLVM's NVPTX backend).
# Usage: bench/compile-times.sh [N]   (compare with Triton's cold compile on the GPU machine:
#        python3 ../shared/bench/harness.py frontend DIR)
# The second table is the same kernels from their Python source (the front end included).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-11}
cargo build --release -q -p tritium
out=$(mktemp -d)
printf '%-10s %8s %8s %8s\n' kernel median_ms min_ms max_ms
for spec in add:4 softmax:8 rmsnorm:8 matmul:8; do
  kernel=${spec%%:*} warps=${spec##*:}
  times=()
  for _ in $(seq "$runs"); do
    cache=$(mktemp -d)  # a fresh compile cache per run: a cold compile, not a cache hit
    start=$(date +%s%N)
    TRITIUM_CACHE_DIR=$cache target/release/tritium compile "test/Inputs/kernels/$kernel.ttir" \
      --num-warps "$warps" -o "$out" >/dev/null
    times+=($(( ($(date +%s%N) - start) / 1000 )))
    rm -rf "$cache"
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  n=${#sorted[@]}
  printf '%-10s %8.1f %8.1f %8.1f\n' "$kernel" "$(echo "${sorted[$((n / 2))]}/1000" | bc -l)" \
    "$(echo "${sorted[0]}/1000" | bc -l)" "$(echo "${sorted[$((n - 1))]}/1000" | bc -l)"
done
py=test/Inputs/frontend/cases_visible.py
printf '\n%-10s %8s %8s %8s   (from %s)\n' kernel median_ms min_ms max_ms "$py"
for spec in \
  "add|4|*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" \
  "softmax|8|*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 4096" \
  "rmsnorm|8|*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 4096" \
  "matmul|8|*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 256, 64, 8"; do
  IFS='|' read -r kernel warps signature <<<"$spec"
  times=()
  for _ in $(seq "$runs"); do
    cache=$(mktemp -d)
    start=$(date +%s%N)
    TRITIUM_CACHE_DIR=$cache target/release/tritium compile "$py" -n "${kernel}_kernel" \
      -s "$signature" -w "$warps" -o "$out" >/dev/null
    times+=($(( ($(date +%s%N) - start) / 1000 )))
    rm -rf "$cache"
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  n=${#sorted[@]}
  printf '%-10s %8.1f %8.1f %8.1f\n' "$kernel" "$(echo "${sorted[$((n / 2))]}/1000" | bc -l)" \
    "$(echo "${sorted[0]}/1000" | bc -l)" "$(echo "${sorted[$((n - 1))]}/1000" | bc -l)"
done
rm -rf "$out"
