# Real use: the slow-EMA centring module built once and called on a stream of fresh batches. The compiled
# graph's kernels as Inductor wrote them (kernel 0: column sums; kernel 1: output from the old running mean and
# the batch mean; kernel 2: the in-place running-mean update), with kernel 2 = the candidate, run in the Triton
# interpreter and launched as Inductor launches it (XBLOCK 64, grid 1); the eager module is the reference.
# usage: python demo.py [cand_mod40.py | own.py]
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_mod40.py"
src = open(os.path.join(d, cand)).read()
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_poi_fused_add_copy__mean_mul_2

for label, draw in [("features N(1, 0.5) (e.g. sensor readings with an offset)", lambda: torch.randn(32, 64) * 0.5 + 1.0),
                    ("features N(0, 1), as get_inputs draws", lambda: torch.randn(32, 64))]:
    print("==", label)
    torch.manual_seed(0)
    ref, cm = prob.Model(), prob.Model()
    first = None
    for step in range(1, 301):
        x = draw()
        with torch.no_grad():
            y_ref = ref(x)
            s = x.sum(0).contiguous()
            y = x - (cm.running_mean * 0.99 + (s / 32.0) * 0.01)
            kern[(1,)](s, cm.running_mean, cm.running_mean, 64, XBLOCK=64)
        err = (y - y_ref).abs()
        tol = 1e-4 + 1e-4 * y_ref.abs()
        e, frac = err.max().item(), (err > 10 * tol).float().mean().item()
        es = (cm.running_mean - ref.running_mean).abs().max().item()
        if first is None and e > 1e-3: first = step
        if step in (1, 2, 10, 39, 40, 41, 42, 60, 80, 81, 100, 150, 200, 250, 300):
            print(f"call {step:3d}: output max abs err {e:9.3g} (beyond 10 tolerances at {frac:4.0%} of positions); "
                  f"running_mean max abs err {es:9.3g}")
    print("first call with output off by >1e-3:", first)
