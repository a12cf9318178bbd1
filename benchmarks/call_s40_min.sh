# Session 40's last device call, when little device time is left (~200 s): the GPU tests of session 39's
# CPU-only changes (the bounds table's code 255, holds_device_records over every record), then the free-form
# candidate at 8 GiB outputs with what is left.
T0=$(date +%s); left() { echo $(( ${BUDGET:-200} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
STEPS="env tests" T_TESTS=${T_TESTS:-90} TESTS="tests/test_level_kernel.py tests/test_provenance.py tests/test_judge_kernels.py" \
  bash benchmarks/gpu_session.sh >/dev/null 2>&1; grep -E "passed|failed|FAILED|Error" /tmp/w/tests.log | tail -8
cp /tmp/w/tests.log $OUT/ 2>/dev/null
L=$(left); if [ $L -gt 60 ]; then
  STEPS=activity ACT_ONLY=free-form T_ACT=$((L - 10)) ACT_PROBS=benchmarks/at_size/softmax_rows_8gib.py \
    bash benchmarks/gpu_session.sh 2>&1 | grep '^{' | cut -c1-900; cp /tmp/w/activity.json $OUT/ 2>/dev/null
fi; cp /tmp/w/session.txt $OUT/ 2>/dev/null; true
