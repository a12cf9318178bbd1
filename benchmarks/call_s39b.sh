# the second call of session 39 (the H100 of the first): the level and stats kernels with FMA contraction off, and
# the truths' steps timed with the level kernel and with torch
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/test_level_kernel.py tests/test_stats_kernel.py 2>&1 | tail -4
for v in 0 1; do
  timeout 130 env TC_TORCH_LEVELS=$v PYTHONPATH=$PWD python3 benchmarks/truth_cost.py $OUT/truth_cost_torch_levels_$v.json \
    benchmarks/problems/softmax_rows_big.py > $OUT/truth_cost_$v.log 2>&1; echo "rc=$?"; grep -v Warning $OUT/truth_cost_$v.log | tail -60 | grep -A2 "wall_s\|level_kernel\|Error\|\"s\""| head -60
done
