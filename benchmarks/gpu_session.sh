#!/usr/bin/env bash
# One device call (one H200): run from the repository root with OUT set; wheels for openai (and its needs)
# in .whl/ when carried.  STEPS picks what runs, in order: env tests demo overhead perf agents bench screening
# activity ffprofile modes modecost kernels.
#   activity  STACKS=SECONDS: sampled stacks of every process (benchmarks/sample_stacks.py), summed up in
#             stack_summary.txt (benchmarks/stack_summary.py)
#   modecost  verify mode (a copy of MODECOST_CACHE, default benchmarks/kernels_cache where every one of $PROBS is
#             under benchmarks/, else kernels_cache; an empty trust folder) against
#             --kernelopt-mode=off over $PROBS (one or more paths), with workers forked from the forkserver and
#             spawned (MODECOST_STARTS)
#   modes     `kernelopt bench --compare-modes` over MODES_PROBS (default benchmarks/problems) into MODES_OUT
#             (default benchmarks/results/compare_modes, in the working tree: copy it back from $OUT after
#             each call and the next call resumes where this one stopped; --stop-after MODES_STOP seconds);
#             the suite's kernel cache MODES_CACHE (default benchmarks/kernels_cache) comes back as
#             bench_kernels_cache/: copy it back too, and a re-run re-verifies instead of searching
#   demo      the issue's two runs: `pytest --kernelopt --kernelopt-problems examples/problems` (optimize,
#             writes kernels_cache/), then the same without --kernelopt, served from the cache; timed
#             CACHE_DIR=DIR runs both against DIR (e.g. an empty one under $W) instead of kernels_cache/
#   overhead  the cached-run bar (benchmarks/cached_run_overhead.py)
# Every step writes under $W; after each step $W is packed into $OUT/results.tgz (with kernels_cache/), so
# a step cut off by its timeout loses only itself.  Python writes bytecode caches (under /tmp/pyc) as on a
# user's machine: the device sets PYTHONDONTWRITEBYTECODE, which makes every process compile its imports.
set -u
export PYTHONUNBUFFERED=1
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX=/tmp/pyc
W=/tmp/w; mkdir -p $W
log=$W/session.txt
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
# the package itself, so that pytest finds the plugin by its entry point (pytester's subprocesses too)
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site . \
  || echo "package install failed: the plugin is loaded by name only" | tee -a $log
export PYTHONPATH=$PWD:/tmp/site
pack() { cp $log $OUT/session.txt; tar czf $OUT/results.tgz -C $W . -C $PWD kernels_cache 2>/dev/null; }
timed() { local t0=$(date +%s%N); "$@"; local rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  echo "rc=$rc wall=$((ms / 1000)).$(printf %03d $((ms % 1000)))s: $*" | tee -a $log; }
PROBS=${PROBS:-examples/problems}
KC=${CACHE_DIR:+--kernelopt-cache-dir $CACHE_DIR}
PA=$(for p in $PROBS; do printf -- '--kernelopt-problems %s ' $p; done)
for step in ${STEPS:-env tests}; do case $step in
env) { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import sys, torch, triton; print(sys.version.split()[0], torch.__version__, triton.__version__, 'dont_write_bytecode', sys.dont_write_bytecode)"
  python3 -c "import openai; print('openai', openai.__version__)" 2>&1 | tail -1; } 2>&1 | tee -a $log ;;
tests) echo "== tests on the GPU: ${TESTS:-tests/test_plugin.py tests/test_agents_e2e.py}" | tee -a $log
  timed timeout ${T_TESTS:-500} python3 -m pytest -v -rfEs -p no:cacheprovider --durations=15 \
    ${TESTS:-tests/test_plugin.py tests/test_agents_e2e.py} > $W/tests.log 2>&1
  tail -40 $W/tests.log | tee -a $log ;;
demo) echo "== optimize run, then the cached run" | tee -a $log
  timed timeout ${T_OPT:-330} python3 -m pytest -p no:cacheprovider --kernelopt --kernelopt-problems $PROBS $KC \
    --kernelopt-report=$W/optimize_run.json > $W/optimize_run.log 2>&1
  grep -v Warning $W/optimize_run.log | tail -22 | tee -a $log
  timed timeout ${T_CACHED:-90} python3 -m pytest -p no:cacheprovider --kernelopt-problems $PROBS $KC \
    --kernelopt-report=$W/cached_run.json > $W/cached_run.log 2>&1
  grep -v Warning $W/cached_run.log | tail -16 | tee -a $log ;;
overhead) echo "== cached-run overhead" | tee -a $log
  timeout ${T_OVERHEAD:-240} python3 benchmarks/cached_run_overhead.py --rounds ${ROUNDS:-4} --report $W/overhead.json \
    --log $W/overhead.log ${PROFILE:+--profile $W/profile} $PROBS 2>&1 | tee -a $log ;;
perf) echo "== the CI performance gate: --kernelopt-perf re-measures each module with its cached kernels" | tee -a $log
  timed timeout ${T_PERF:-120} python3 -m pytest -p no:cacheprovider --kernelopt-problems $PROBS --kernelopt-perf \
    --kernelopt-report=$W/perf_run.json > $W/perf_run.log 2>&1
  grep -v Warning $W/perf_run.log | tail -16 | tee -a $log ;;
agents) echo "== agents on the GPU (scripted model)" | tee -a $log
  timeout ${T_AGENTS:-90} python3 benchmarks/agents_gpu.py $W/agents.json 1024 4096 2>&1 | grep -v Warning | tee -a $log ;;
bench) echo "== offline tuner over the examples, empty cache" | tee -a $log
  timed timeout ${T_BENCH:-420} python3 -m pytest_kernelopt.cli bench $PROBS --proposer tuner --cache-dir /tmp/kc \
    --report $W/bench.json > $W/bench.log 2>&1
  grep -v Warning $W/bench.log | tail -25 | tee -a $log ;;
screening) echo "== the tuner's screening against the performance gate (A/A and the 3 fastest-screened configs)" | tee -a $log
  timeout ${T_SCREEN:-300} python3 benchmarks/screening_vs_gate.py $W/screening.json \
    ${SCREEN_PROBS:-examples/problems/conv_groupnorm.py} 2>&1 | grep -v Warning | tee -a $log ;;
activity) echo "== where a gated candidate's time goes (benchmarks/gate_activity.py${ACT_TAG:+, $ACT_TAG}; KERNELOPT_DEVICE_FRAMES=${KERNELOPT_DEVICE_FRAMES:-1})" | tee -a $log
  timeout ${T_ACT:-400} ${STACKS:+python3 benchmarks/sample_stacks.py --every $STACKS --dir $W/stacks${ACT_TAG:-} --} \
    python3 benchmarks/gate_activity.py $W/activity${ACT_TAG:-}.json \
    ${ACT_PROBS:-benchmarks/problems/cumprod.py} 2>&1 | grep -v Warning | tee -a $log
  if [ -n "${STACKS:-}" ]; then python3 benchmarks/stack_summary.py $W/stacks${ACT_TAG:-} > $W/stack_summary${ACT_TAG:-}.txt; fi ;;
kernels) echo "== the judge's statistics over a large output: its Triton kernels against the torch paths" | tee -a $log
  timeout ${T_KERNELS:-120} python3 benchmarks/kernel_cost.py $W/kernel_cost.json 2>&1 | tee -a $log ;;
ffprofile) echo "== a free-form candidate's checks under cProfile (benchmarks/freeform_profile.py)" | tee -a $log
  timeout ${T_FF:-300} python3 benchmarks/freeform_profile.py $W/ffprofile.json \
    ${FF_PROBS:-benchmarks/problems/cumsum.py} > $W/ffprofile.log 2>&1
  grep -v Warning $W/ffprofile.log | head -120 | tee -a $log ;;
modecost) echo "== verify mode (the committed cache, a fresh machine's trust) against --kernelopt-mode=off over $PROBS" | tee -a $log
  for start in ${MODECOST_STARTS:-forkserver spawn}; do
    MC=benchmarks/kernels_cache; for p in $PROBS; do case $p in benchmarks/*) ;; *) MC=kernels_cache ;; esac; done
    rm -rf /tmp/kc_v /tmp/trust_v && cp -r ${MODECOST_CACHE:-$MC} /tmp/kc_v && echo "cache: ${MODECOST_CACHE:-$MC}" | tee -a $log
    timed env KERNELOPT_WORKER_START=$start timeout ${T_MODECOST:-200} python3 -m pytest -p no:cacheprovider \
      $PA --kernelopt-mode=off > $W/mode_off_$start.log 2>&1
    tail -1 $W/mode_off_$start.log | tee -a $log
    timed env KERNELOPT_WORKER_START=$start KERNELOPT_TRUST_DIR=/tmp/trust_v timeout ${T_MODECOST:-200} python3 -m \
      pytest -p no:cacheprovider $PA --kernelopt-cache-dir /tmp/kc_v \
      --kernelopt-report=$W/verify_$start.json > $W/mode_verify_$start.log 2>&1
    grep -v Warning $W/mode_verify_$start.log | tail -14 | tee -a $log
  done ;;
modes) MO=${MODES_OUT:-benchmarks/results/compare_modes}
  echo "== kernelopt bench --compare-modes, resuming from $MO" | tee -a $log
  timed timeout ${T_MODES:-560} python3 -m pytest_kernelopt.cli bench ${MODES_PROBS:-benchmarks/problems} \
    --compare-modes --out $MO --cache-dir ${MODES_CACHE:-benchmarks/kernels_cache} --stop-after ${MODES_STOP:-300} \
    ${MODES_ARGS:-} > $W/modes.log 2>&1
  grep -v Warning $W/modes.log | tail -40 | tee -a $log
  mkdir -p $W/compare_modes && cp $MO/* $W/compare_modes/
  rm -rf $W/bench_kernels_cache && cp -r ${MODES_CACHE:-benchmarks/kernels_cache} $W/bench_kernels_cache ;;
esac; pack; done
