#!/usr/bin/env bash
# PTX, metadata and TTIR of tutorial 06's attention forward at bench/cases_attention.py's configs,
# for `harness.py ours` (CASE_MODULES=cases_attention, ATTN_SHAPE=Z,H,N_CTX on the GPU machine).
# Usage: bench/attention-ptx.sh OUT_DIR N_CTX CASE...    (CASE as attn06_d64_64x64_c)
#        TRITIUM=path overrides target/release/tritium
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/attention-ptx.sh OUT_DIR N_CTX CASE...}; n_ctx=${2:?N_CTX}; shift 2
tritium=${TRITIUM:-target/release/tritium}
mkdir -p "$out"
p16="*fp16:16"; p32="*fp32:16"; strides="i32:16, i32:16, i32:16, 1"
for case in "$@"; do
  [[ $case =~ ^attn06_d([0-9]+)_([0-9]+)x([0-9]+)_([cn])$ ]] || { echo "not a case name: $case" >&2; exit 2; }
  d=${BASH_REMATCH[1]}; bm=${BASH_REMATCH[2]}; bn=${BASH_REMATCH[3]}
  stage=$([ "${BASH_REMATCH[4]}" = c ] && echo 3 || echo 1)
  "$tritium" compile python/tests/gpu/t06_fused_attention.py -n _attn_fwd -w 4 --num-stages 3 \
    -s "$p16, $p16, $p16, fp32, $p32, $p16, $strides, $strides, $strides, $strides, i32, i32, \
$n_ctx, $d, $bm, $bn, $stage" --emit ttir --out-name "$case" -o "$out" >/dev/null
done
