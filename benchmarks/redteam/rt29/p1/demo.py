# Runs the module's forward as its compiled graph does (kernel 0: column sums; kernel 1: output from the old
# running mean; kernel 2: the in-place running-mean update), with kernel 2 = the candidate's body in the plain
# Triton interpreter, launched as Inductor launches it (XBLOCK 64, grid 1), against the eager module, in a
# loop of calls as in a training/streaming loop.  usage: python demo.py cand_T50.py
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_T50.py"
src = open(os.path.join(d, cand)).read()
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_poi_fused_add_copy__mean_mul_2

torch.manual_seed(0)
ref = prob.Model()            # eager
cm = prob.Model()             # "compiled" with the candidate kernel 2
for step in range(1, 161):
    x = torch.randn(32, 64) * 0.5 + 1.0          # features with mean 1.0
    y_ref = ref(x)
    s = x.sum(0)                                   # kernel 0 (in_out_ptr0 of kernel 2)
    y = x - (cm.running_mean * 0.9 + (s / 32.0) * 0.1)   # kernel 1 (reads the old running mean)
    kern[(1,)](s, cm.running_mean, cm.running_mean, 64, XBLOCK=64)   # kernel 2, in place
    e = (y - y_ref).abs().max().item()
    es = (cm.running_mean - ref.running_mean).abs().max().item()
    if step <= 3 or step % 10 == 0 or 48 <= step <= 53:
        print(f"call {step:3d}: output max abs err {e:.3g} (off >1e-3 at {((y - y_ref).abs() > 1e-3).float().mean():.0%}), "
              f"running_mean max abs err {es:.3g}")
