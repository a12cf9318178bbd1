# Streaming normaliser in a loop, as in real use: the compiled graph's three kernels (column sums, output
# from the old running mean, in-place running-mean update = the candidate, in the Triton interpreter,
# launched as Inductor launches it: XBLOCK 64, grid 1) against the eager module.
# usage: python demo.py [cand_overshoot.py]
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_overshoot.py"
src = open(os.path.join(d, cand)).read()
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_poi_fused_add_copy__mean_mul_2

for label, mu, sd in [("features with mean 0 (as get_inputs draws)", 0.0, 1.0),
                      ("features with mean 1.0, std 0.5 (e.g. positive sensor readings)", 1.0, 0.5),
                      ("pixel-like features in [0,1] (torch.rand)", None, None)]:
    print("==", label)
    torch.manual_seed(0)
    ref, cm = prob.Model(), prob.Model()
    first = None
    for step in range(1, 101):
        x = torch.rand(32, 64) if mu is None else torch.randn(32, 64) * sd + mu
        y_ref = ref(x)
        s = x.sum(0)
        y = x - (cm.running_mean * 0.9 + (s / 32.0) * 0.1)
        kern[(1,)](s, cm.running_mean, cm.running_mean, 64, XBLOCK=64)
        e = (y - y_ref).abs().max().item()
        frac = ((y - y_ref).abs() > 1e-3).float().mean().item()
        es = (cm.running_mean - ref.running_mean).abs().max().item()
        if first is None and e > 1e-3: first = step
        if step <= 2 or step % 10 == 0 or (first is not None and step <= first + 1 and step >= first - 1):
            print(f"call {step:3d}: output max abs err {e:.3g} (off >1e-3 at {frac:.0%}), running_mean max abs err {es:.3g}")
    print("first call with output off by >1e-3:", first)
