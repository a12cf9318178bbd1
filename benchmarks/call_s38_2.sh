# verify mode on a fresh machine's trust, log_softmax then instancenorm2d, under cProfile (the in-process judge)
export PYTHONPATH=$PWD:/tmp/site PYTHONPYCACHEPREFIX=/tmp/pyc; unset PYTHONDONTWRITEBYTECODE
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site . >/dev/null 2>&1
rm -rf /tmp/trust_s /tmp/kc_s; cp -r benchmarks/kernels_cache /tmp/kc_s; mkdir -p $OUT
KERNELOPT_WORKER_START=forkserver KERNELOPT_TRUST_DIR=/tmp/trust_s timeout ${T:-170} python3 -m cProfile -o $OUT/verify.prof -m pytest -p no:cacheprovider --kernelopt-problems benchmarks/problems/log_softmax.py --kernelopt-problems benchmarks/problems/instancenorm2d.py --kernelopt-cache-dir /tmp/kc_s --kernelopt-report=$OUT/rep.json --durations=5 -s 2>&1 | grep -v Warn | tail -30
python3 - <<'PY' > $OUT/verify_prof.txt
import os, pstats
p = pstats.Stats(os.environ["OUT"] + "/verify.prof"); p.sort_stats("cumulative").print_stats("pytest_kernelopt", 90)
p.sort_stats("tottime").print_stats(40)
PY
head -c 9000 $OUT/verify_prof.txt | cut -c1-170
