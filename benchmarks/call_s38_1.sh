T0=$(date +%s); left() { echo $(( 490 - ($(date +%s) - T0) )); }
STEPS="env tests" T_TESTS=150 TESTS="tests/test_isolate_protocol.py tests/test_provenance.py tests/test_soundness.py tests/test_device_frames.py" bash benchmarks/gpu_session.sh >/dev/null 2>&1
tail -8 /tmp/w/tests.log; cp /tmp/w/tests.log /tmp/w/session.txt $OUT/
ACT_PROFILE=/tmp/w/judge_profile.txt STEPS=activity ACT_ONLY=free-form T_ACT=125 ACT_PROBS=benchmarks/problems/softmax_rows_big.py bash benchmarks/gpu_session.sh 2>&1 | tail -12
cp /tmp/w/judge_profile.txt /tmp/w/activity*.json $OUT/ 2>/dev/null
if nvidia-smi | grep -q H200 && [ $(left) -gt 200 ]; then
P=""; for p in loss_kl_div maxpool3d instancenorm2d reduce_argmin_dim0 loss_huber logsumexp log_softmax loss_cross_entropy; do P="$P benchmarks/problems/$p.py"; done
STEPS=modecost MODECOST_STARTS=forkserver MODECOST_CACHE=kernels_cache T_MODECOST=$(( $(left) / 2 < 160 ? $(left) / 2 : 160 )) PROBS="$P" bash benchmarks/gpu_session.sh 2>&1 | grep -v "^rc=" | tail -14
fi
L=$(left); if [ $L -gt 20 ]; then timeout $((L-5)) env PYTHONPATH=$PWD python3 benchmarks/decade_sweep.py /tmp/w/decade_sweep.json 1 2>&1 | tail -25; fi
cp /tmp/w/* $OUT/ 2>/dev/null; grep rc= /tmp/w/session.txt | cut -c1-120
