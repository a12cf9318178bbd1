# Real use: the momentum-0.1 EMA centring module called on a stream of fresh batches (a streaming normaliser).
# Kernels as Inductor wrote them (0: column sums; 1: output from the old running mean and the batch mean;
# 2: in-place running-mean update = the candidate, Triton interpreter, grid 1, XBLOCK 64); eager reference.
# usage: python demo.py [cand_phase8.py | own.py]
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_phase8.py"
src = open(os.path.join(d, cand)).read()
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_poi_fused_add_copy__mean_mul_2
torch.manual_seed(0)
ref, cm = prob.Model(), prob.Model()
bad = []
for step in range(1, 201):
    x = torch.randn(32, 64)
    with torch.no_grad():
        y_ref = ref(x)
        s = x.sum(0).contiguous()
        y = x - (cm.running_mean * 0.9 + (s / 32.0) * 0.1)
        kern[(1,)](s, cm.running_mean, cm.running_mean, 64, XBLOCK=64)
    e = (y - y_ref).abs().max().item()
    if e > 1e-3: bad.append((step, round(e, 3)))
print("calls (of 200) whose output is off by > 1e-3:", len(bad))
print("first ones (call, max abs err):", bad[:12])
print("running_mean max abs err after 200 calls:", (cm.running_mean - ref.running_mean).abs().max().item())
