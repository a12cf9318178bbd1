# verify mode over 8 problems against --kernelopt-mode=off, the suite's cache, a fresh machine's trust
P=""; for p in loss_kl_div maxpool3d instancenorm2d reduce_argmin_dim0 loss_huber logsumexp log_softmax loss_cross_entropy; do P="$P benchmarks/problems/$p.py"; done
STEPS="env modecost" MODECOST_STARTS=forkserver MODECOST_CACHE=benchmarks/kernels_cache T_MODECOST=${T:-110} PROBS="$P" bash benchmarks/gpu_session.sh 2>&1 | grep -v "^rc=\|WARNING" | tail -15
grep "rc=" /tmp/w/session.txt | cut -c1-60; cp /tmp/w/session.txt /tmp/w/*.log /tmp/w/*.json $OUT/ 2>/dev/null; true
