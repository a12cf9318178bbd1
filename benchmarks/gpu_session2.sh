#!/usr/bin/env bash
# Session 2's device call (one H200): the cached-run bar, the GPU-relevant test files, the agents on the GPU.
# Run from the repository root with OUT set; wheels for openai (and its needs) in .whl/ when carried.
set -u
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=$PWD:/tmp/site
else
  export PYTHONPATH=$PWD
fi
log=$OUT/session.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch, triton; print(sys.version.split()[0], torch.__version__, triton.__version__, 'dont_write_bytecode', sys.dont_write_bytecode)"
  python3 -c "import openai; print('openai', openai.__version__)" 2>&1 | tail -1
  echo "PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE:-}"; } 2>&1 | tee $log
echo "== cached-run overhead" | tee -a $log
timeout ${T_OVERHEAD:-240} python3 benchmarks/cached_run_overhead.py --rounds 3 --profile $OUT --report $OUT/overhead.json \
  --log $OUT/overhead.log examples/problems 2>&1 | tee -a $log
rm -f $OUT/plugin_run.prof
echo "== tests on the GPU" | tee -a $log
timeout ${T_TESTS:-220} python3 -m pytest -p pytest_kernelopt.plugin -q -rfEs ${TESTS:-tests/test_plugin.py tests/test_optimize.py \
  tests/test_module_kinds.py tests/test_gates.py tests/test_agents_e2e.py tests/test_profile.py tests/test_ncu.py} \
  > $OUT/tests.log 2>&1; echo "pytest rc=$?" | tee -a $log; tail -15 $OUT/tests.log | tee -a $log
echo "== agents on the GPU (scripted model)" | tee -a $log
timeout ${T_AGENTS:-90} python3 benchmarks/agents_gpu.py $OUT/agents.json 1024 4096 2>&1 | grep -v Warning | tee -a $log
