# The next session's first device call (~9 minutes; an H200 first: the suite's cache was recorded there, so verify
# mode meets fresh entries). Everything in priority order, each step bounded; results under $OUT.
#  1. GPU tests of session 39's changes (the level kernel, the in-process judge's records by class)
#  2. verify mode against --kernelopt-mode=off over the 8 problems with accepted entries (the 1.5x bar)
#  3. a free-form candidate at 8 GiB outputs (benchmarks/at_size/softmax_rows_8gib.py; the bar 60 s; the suite's
#     6 GiB softmax_rows_big: 57.1 s on the H200 in session 38, 37.4 s on an H100 in session 39)
#  4. whole searches of single-kernel problems with an empty cache (the 60 s bar): the slowest of the H200 record
T0=$(date +%s); left() { echo $(( ${BUDGET:-560} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
STEPS="env tests" T_TESTS=120 TESTS="tests/test_level_kernel.py tests/test_provenance.py tests/test_judge_kernels.py tests/test_stats_kernel.py" \
  bash benchmarks/gpu_session.sh >/dev/null 2>&1; tail -3 /tmp/w/tests.log; cp /tmp/w/tests.log $OUT/
if nvidia-smi | grep -q H200; then T=110 bash benchmarks/call_s38_3.sh; fi
STEPS=activity ACT_ONLY=free-form T_ACT=130 ACT_PROBS=benchmarks/at_size/softmax_rows_8gib.py \
  bash benchmarks/gpu_session.sh 2>&1 | grep '^{' | cut -c1-700; cp /tmp/w/activity.json $OUT/ 2>/dev/null
mkdir -p /tmp/empty_cache
L=$(left); STEPS=modes T_MODES=$((L - 20)) MODES_STOP=$((L - 60)) MODES_CACHE=/tmp/empty_cache MODES_OUT=/tmp/w/cm_search \
  MODES_PROBS="benchmarks/problems/log_softmax.py benchmarks/problems/cumsum.py benchmarks/problems/maxpool3d.py benchmarks/problems/softmax_short_rows.py" \
  bash benchmarks/gpu_session.sh 2>&1 | tail -25
cp -r /tmp/w/cm_search $OUT/ 2>/dev/null; cp /tmp/w/modes.log /tmp/w/session.txt $OUT/ 2>/dev/null; true
