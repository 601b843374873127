#!/usr/bin/env bash
# The GPU machine's measuring steps, for the device tool (carry .device and .gpu, built by
#   make gpu-wheel gpu-bundle && bench/device-bundle.sh
# here). Usage there: bench/device-steps.sh STEP...
#   need:CARD   stop here (exit 3) unless the GPU's name contains CARD, e.g. need:H200 before
#               steps whose numbers only count on that card (a call may get another one)
#   info        the GPU's name, clocks, memory
#   bw          bench/copy-bandwidth.py (torch's copy bandwidth, the corpus' yardstick)
#   check       tritium-gpu-check over .gpu/ptx (every lowering pattern, timed)
#   corpus      harness.py ours over the corpus (Triton / Tritium per kernel), saved to $OUT
#   ce          three rounds of the corpus kernels that were weakest on the H200
#   ce1         cross_entropy_fwd and silu_f16 with and without the load prefetch, alternating
#               (.device/ptx_s1: those two compiled with --num-stages 1)
#   ab:DIR:CASES  three rounds alternating .device/ptx_corpus and .device/DIR (PTX of some corpus
#               cases built another way, e.g. before a change) over the comma-separated CASES
#   vscopy      bench/ptx-variants.py over the corpus kernels nearest the copy bandwidth (the five
#               ~270 MB ones of issue 12's third clause, softmax_w128): Tritium, Triton and torch's
#               copy of the same bytes, one process, also after a flush that leaves L2 clean
#   bound       vscopy's kernels but softmax_w128, and transpose_ptr_bf16, beside copies with each one's own launch
#               (bench/launch_copies.py: the ceiling of any kernel launched that way), clean L2 too
#   probe       bench/row-prefetch-probe.py (Triton alone: one-row kernels as a grid, as persistent
#               loops, and as loops prefetching the next row)
#   dot         harness.py ours over the dot cases
#   t:NAME      python/tests/gpu/run_all.py --only NAME (the wheel from .gpu, Triton beside)
#   issue11     every tutorial test issue 11's performance criterion names, in one run_all.py
#               (t03_matmul, matmul_dtypes, matmul_variants, t09_descriptors,
#               t11_persistent_matmul, t06_fused_attention), saved to $OUT/issue11.txt
#   power       bench/persistent-power.py (t09's persistent matmul 8192³: SM clock and power of each)
#   ncup        ncu over one launch of each compiler's t09 persistent matmul 8192³ (cycles at
#               ncu's locked clocks, instructions, shared-memory conflicts, tensor-pipe activity)
#   desc        bench/descriptor-matmul.py (tutorial 09's descriptor matmuls, one process)
#   forms       bench/matmul-forms.py (one tile in pointer/descriptor, tiled/persistent forms)
#   pab         bench/persistent-ab.py (persistent programs and descriptor loads on and off,
#               fp16/bf16/fp8, one process); pab:N1,N2 at the sizes N1³, N2³
#   mm          the matmul tutorial tests of issue11 (all but attention), saved to $OUT/mm.txt
#   wab:SCRIPT,ARG...  bench/SCRIPT ARG... twice under each wheel, alternating: .gpu's and
#               .gpu/old's (a wheel of the compiler before a change; each its own compile cache)
#   occ:SCRIPT,ARG...  bench/SCRIPT ARG... under .gpu's wheel twice with the runtime's occupancy
#               rebuild (Kernel::from_ptx) on and twice off (TRITIUM_OCCUPANCY_RETRY=0), alternating
#   pvar        bench/persistent-variants.py;  fixed / fixed4: bench/matmul-fixed-cost.py
#               (fixed4: 1024 and 4096 with STAGES=4)
set -u
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
site=/tmp/tsite
setup_wheel() {
  [ -d "$site" ] && return
  w=$(ls .gpu/tritium-*.whl.xz | head -1); mkdir -p /tmp/whl
  xz -dc "$w" > "/tmp/whl/$(basename "${w%.xz}")"
  python3 -m pip install -q --no-index --no-deps --target "$site" /tmp/whl/*.whl
}
for step in "$@"; do
  echo "=== $step ($(date +%T))"
  case "$step" in
    need:*) nvidia-smi -L | grep -q "${step#need:}" || { nvidia-smi -L; echo "no ${step#need:} here: stopping"; exit 3; } ;;
    info) nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total --format=csv ;;
    bw) python3 bench/copy-bandwidth.py ;;
    check) .gpu/tritium-gpu-check .gpu/ptx --bench 2>&1 | tail -70 ;;
    corpus) (cd .device/bench && CASE_MODULES=cases_corpus python3 harness.py ours ../corpus_ttir ../ptx_corpus) 2>&1 | tee "$OUT/corpus.txt" | tail -60 ;;
    ce) for r in 1 2 3; do (cd .device/bench && ONLY=cross_entropy_fwd,silu_f16,argmin_rows_f16,dropout,cummax_rows,cumsum_rows CASE_MODULES=cases_corpus python3 harness.py ours ../corpus_ttir ../ptx_corpus) 2>&1 | tail -8; done ;;
    ce1) for r in 1 2 3; do for d in ptx_corpus ptx_s1; do echo "-- $d"; (cd .device/bench && ONLY=cross_entropy_fwd,silu_f16 CASE_MODULES=cases_corpus python3 harness.py ours ../corpus_ttir ../$d) 2>&1 | tail -3; done; done ;;
    ab:*) spec=${step#ab:}; other=${spec%%:*}; cases=${spec#*:}
      for r in 1 2 3; do for d in ptx_corpus "$other"; do echo "-- $d"; (cd .device/bench && ONLY=$cases CASE_MODULES=cases_corpus python3 harness.py ours ../corpus_ttir ../$d) 2>&1 | tail -4; done; done ;;
    vscopy) CLEAN_L2=1 python3 bench/ptx-variants.py softmax_w4096_bf16,layernorm_fwd_f16,rmsnorm_fwd_bf16,rope_f16,argmax_rows,softmax_w128 ptx_corpus 2>&1 | tail -30 ;;
    bound) FORMS=launch_copies CLEAN_L2=1 python3 bench/ptx-variants.py softmax_w4096_bf16,layernorm_fwd_f16,rmsnorm_fwd_bf16,rope_f16,argmax_rows,transpose_ptr_bf16 ptx_corpus 2>&1 | tee "$OUT/bound.txt" | tail -60 ;;
    probe) python3 bench/row-prefetch-probe.py 3 2>&1 | tail -40 ;;
    dot) (cd .device/bench && CASE_MODULES=cases_visible,cases_dot python3 harness.py ours ../dot_ttir ../ptx_dot) 2>&1 | tail -30 ;;
    t:*) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 python/tests/gpu/run_all.py --only "${step#t:}" 2>&1 | tail -40 ;;
    issue11) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 python/tests/gpu/run_all.py \
        --only t03_matmul --only matmul_dtypes --only matmul_variants --only t09_descriptors \
        --only t11_persistent_matmul --only t06_fused_attention 2>&1 \
        | grep -v "Autotuning kernel\|^  \[triton\]" | tee "$OUT/issue11.txt" | grep "bench\|passed\|failed\|^== " ;;
    mm) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 python/tests/gpu/run_all.py \
        --only t03_matmul --only matmul_dtypes --only matmul_variants --only t09_descriptors \
        --only t11_persistent_matmul 2>&1 \
        | grep -v "Autotuning kernel\|^  \[triton\]" | tee "$OUT/mm.txt" | grep "bench\|passed\|failed\|^== " ;;
    power) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/persistent-power.py 2>&1 | tail -6 ;;
    ncup) setup_wheel; ONCE=1 PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache ncu --kernel-name regex:persistent \
        --launch-skip 2 --launch-count 2 --section SpeedOfLight --section WarpStateStats \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,dram__bytes.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed \
        python3 bench/persistent-power.py > "$OUT/ncup.txt" 2>&1
      grep -v "^==PROF==\|^    ---\|^ *$" "$OUT/ncup.txt" | tail -90 ;;
    desc) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/descriptor-matmul.py 2>&1 | tail -6 ;;
    forms) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/matmul-forms.py 4096 8192 2>&1 | tail -18 ;;
    pab:*) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/persistent-ab.py $(echo ${step#pab:} | tr , " ") 2>&1 | tail -16 ;;
    pab) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/persistent-ab.py 2>&1 | tail -8 ;;
    wab:*) setup_wheel; old_site=/tmp/tsite_old
      if [ ! -d "$old_site" ]; then w=$(ls .gpu/old/tritium-*.whl.xz | head -1); mkdir -p /tmp/whl_old
        xz -dc "$w" > "/tmp/whl_old/$(basename "${w%.xz}")"
        python3 -m pip install -q --no-index --no-deps --target "$old_site" /tmp/whl_old/*.whl; fi
      args=$(echo "${step#wab:}" | tr , " ")
      for r in 1 2; do for s in "$site" "$old_site"; do echo "-- $s"
        PYTHONPATH=$s TRITIUM_CACHE_DIR=$s.cache python3 bench/$args 2>&1 | tail -8; done; done ;;
    occ:*) setup_wheel; args=$(echo "${step#occ:}" | tr , " ")
      for r in 1 2; do for retry in 1 0; do echo "-- TRITIUM_OCCUPANCY_RETRY=$retry"
        TRITIUM_OCCUPANCY_RETRY=$retry PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/$args 2>&1 | tail -12; done; done ;;
    pvar) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/persistent-variants.py 2>&1 | tail -12 ;;
    fixed4) setup_wheel; STAGES=4 PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/matmul-fixed-cost.py 1024 4096 2>&1 | tail -12 ;;
    fixed) setup_wheel; PYTHONPATH=$site TRITIUM_CACHE_DIR=/tmp/tcache python3 bench/matmul-fixed-cost.py 2>&1 | tail -12 ;;
    *) echo "unknown step $step" ;;
  esac
done
