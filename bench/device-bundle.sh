#!/usr/bin/env bash
# Everything `harness.py ours` needs on the GPU machine, in .device/ (git-ignored; carry it):
#
#   bench/device-bundle.sh [HARNESS_DIR]     (default ../shared/bench)
#
#   .device/bench/        harness.py, cases_visible.py (from HARNESS_DIR), cases_corpus.py, cases_dot.py
#   .device/corpus_ttir/  Triton 3.6's TTIR of every corpus case (test/Inputs/corpus)
#   .device/ptx_corpus/   Tritium's PTX of each, at the case's num_warps and 3 stages
#   .device/dot_ttir/     Triton 3.6's TTIR of the dot cases (test/Inputs/kernels/dot)
#   .device/ptx_dot/      Tritium's PTX of each: 3 stages for *_s3 cases, 1 otherwise (as the cases)
#
# Then, on the GPU machine:
#   cd .device/bench && CASE_MODULES=cases_corpus python3 harness.py ours ../corpus_ttir ../ptx_corpus
#   cd .device/bench && CASE_MODULES=cases_visible,cases_dot python3 harness.py ours ../dot_ttir ../ptx_dot
set -euo pipefail
cd "$(dirname "$0")/.."
harness_dir="${1:-../shared/bench}"
tritium="${TRITIUM:-target/release/tritium}"
rm -rf .device/bench .device/corpus_ttir .device/ptx_corpus .device/dot_ttir .device/ptx_dot
mkdir -p .device/bench .device/corpus_ttir .device/ptx_corpus .device/dot_ttir .device/ptx_dot
cp "$harness_dir/harness.py" "$harness_dir/cases_visible.py" bench/cases_corpus.py bench/cases_dot.py .device/bench/

warps_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["num_warps"])' "$1"; }

failed=""
for ttir in test/Inputs/corpus/*.ttir; do
  case_name=$(basename "$ttir" .ttir)
  cp "$ttir" .device/corpus_ttir/
  "$tritium" compile "$ttir" --num-warps "$(warps_of "${ttir%.ttir}.json")" --num-stages 3 \
    --out-name "$case_name" -o .device/ptx_corpus >/dev/null || failed="$failed $case_name"
done
for ttir in test/Inputs/kernels/dot/*.ttir; do
  case_name=$(basename "$ttir" .ttir)
  [ -f "${ttir%.ttir}.json" ] || continue   # inputs of lit tests, not harness cases
  stages=1
  case "$case_name" in *_s3) stages=3 ;; esac
  cp "$ttir" .device/dot_ttir/
  "$tritium" compile "$ttir" --num-warps "$(warps_of "${ttir%.ttir}.json")" --num-stages "$stages" \
    --out-name "$case_name" -o .device/ptx_dot >/dev/null || failed="$failed $case_name"
done
echo "corpus: $(ls .device/ptx_corpus/*.ptx | wc -l) PTX, dot: $(ls .device/ptx_dot/*.ptx | wc -l) PTX"
if [ -n "$failed" ]; then echo "did not compile:$failed"; exit 1; fi
