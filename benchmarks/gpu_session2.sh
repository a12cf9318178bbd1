#!/usr/bin/env bash
# Session 2's device calls (one H200).  Run from the repository root with OUT set; wheels for openai (and
# its needs) in .whl/ when carried.  STEPS picks what runs: env tests overhead agents bench.
set -u
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
# the package itself, so that pytest finds the plugin by its entry point (pytester's subprocesses too)
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site . \
  || echo "package install failed: the plugin is loaded by name only"
export PYTHONPATH=$PWD:/tmp/site
log=$OUT/session.txt
for step in ${STEPS:-env tests overhead agents}; do case $step in
env) { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch, triton; print(sys.version.split()[0], torch.__version__, triton.__version__, 'dont_write_bytecode', sys.dont_write_bytecode)"
  python3 -c "import openai; print('openai', openai.__version__)" 2>&1 | tail -1; } 2>&1 | tee -a $log ;;
tests) echo "== tests on the GPU" | tee -a $log
  timeout ${T_TESTS:-220} python3 -m pytest -q -rfEs ${TESTS:-tests/test_plugin.py tests/test_agents_e2e.py} \
    > $OUT/tests.log 2>&1; echo "pytest rc=$?" | tee -a $log; tail -15 $OUT/tests.log | tee -a $log ;;
overhead) echo "== cached-run overhead" | tee -a $log
  timeout ${T_OVERHEAD:-240} python3 benchmarks/cached_run_overhead.py --rounds ${ROUNDS:-3} --report $OUT/overhead.json \
    --log $OUT/overhead.log examples/problems 2>&1 | tee -a $log ;;
agents) echo "== agents on the GPU (scripted model)" | tee -a $log
  timeout ${T_AGENTS:-90} python3 benchmarks/agents_gpu.py $OUT/agents.json 1024 4096 2>&1 | grep -v Warning | tee -a $log ;;
bench) echo "== offline tuner over the examples, empty cache" | tee -a $log
  timeout ${T_BENCH:-420} python3 -m pytest_kernelopt.cli bench examples/problems --proposer tuner --cache-dir /tmp/kc \
    --report $OUT/bench.json 2>&1 | grep -v Warning > $OUT/bench.log; echo "bench rc=$?" | tee -a $log
  tail -25 $OUT/bench.log | tee -a $log ;;
esac; done
