# The next session's first device call (an H200: the suite's cache was recorded there, so its entries are not
# stale): the in-process judge's records on the device (benchmarks/patches/inprocess_records_on_device.patch,
# applied to the device's copy only), its test on the GPU, then verify mode against --kernelopt-mode=off over the
# 8 problems with accepted entries; log_softmax's verify under cProfile where time is left.  ~6 minutes.
T0=$(date +%s); left() { echo $(( ${BUDGET:-560} - ($(date +%s) - T0) )); }
git apply benchmarks/patches/inprocess_records_on_device.patch 2>/dev/null \
  || patch -p1 < benchmarks/patches/inprocess_records_on_device.patch || { echo "patch did not apply"; exit 1; }
echo "patch applied"
STEPS="env tests" T_TESTS=150 TESTS="tests/test_provenance.py tests/test_isolate_protocol.py tests/test_judge_kernels.py tests/test_checksum_kernel.py tests/test_digest_kernel.py tests/test_decade_kernel.py tests/test_stats_kernel.py tests/test_moments_kernel.py tests/test_level_kernel.py" \
  bash benchmarks/gpu_session.sh >/dev/null 2>&1; tail -4 /tmp/w/tests.log; cp /tmp/w/tests.log $OUT/
if nvidia-smi | grep -q H200; then
  T=120 bash benchmarks/call_s38_3.sh
  timeout 120 env PYTHONPATH=$PWD python3 benchmarks/truth_cost.py $OUT/truth_cost.json benchmarks/problems/softmax_rows_big.py 2>&1 | grep -v Warning | tail -45
  timeout 120 env TC_TORCH_LEVELS=1 PYTHONPATH=$PWD python3 benchmarks/truth_cost.py $OUT/truth_cost_torch_levels.json benchmarks/problems/softmax_rows_big.py 2>&1 | grep -v Warning | grep -A3 "wall_s\|raise_levels\|level_kernel"
  L=$(left); if [ $L -gt 100 ]; then T=$((L - 20)) bash benchmarks/call_s38_2.sh; fi
else  # an H100: the suite's entries are stale here; where a free-form candidate's time goes, with stack samples
  timeout 120 env PYTHONPATH=$PWD python3 benchmarks/truth_cost.py $OUT/truth_cost.json benchmarks/problems/softmax_rows_big.py 2>&1 | grep -v Warning | tail -45
  timeout 120 env TC_TORCH_LEVELS=1 PYTHONPATH=$PWD python3 benchmarks/truth_cost.py $OUT/truth_cost_torch_levels.json benchmarks/problems/softmax_rows_big.py 2>&1 | grep -v Warning | grep -A3 "wall_s\|raise_levels\|level_kernel"
  L=$(left); STACKS=3 STEPS=activity ACT_ONLY=free-form T_ACT=$((L - 30)) ACT_PROBS=benchmarks/problems/softmax_rows_big.py \
    bash benchmarks/gpu_session.sh 2>&1 | tail -14
  cp /tmp/w/activity*.json /tmp/w/stack_summary*.txt $OUT/ 2>/dev/null; tar czf $OUT/stacks.tgz -C /tmp/w stacks 2>/dev/null
fi
