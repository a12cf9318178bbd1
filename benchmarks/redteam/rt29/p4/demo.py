# Runs cand_simplex.py's body in the plain Triton interpreter as Inductor launches it (XBLOCK 1, grid 256) on
# (a) torch.rand as get_inputs draws it and (b) real categorical distributions: softmax of policy logits,
# attention probabilities, label-smoothed targets; against the eager module.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
src = open(d + "/cand_simplex.py").read()
hdr = ("import triton, triton.language as tl\n"
       "from torch._inductor.runtime.triton_helpers import math as tl_math\n")
open(d + "/_k.py", "w").write(hdr + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused_add_log_mul_neg_sum_0
m = prob.Model()
torch.manual_seed(0)
smooth = torch.full((256, 64), 0.1 / 64); smooth[torch.arange(256), torch.randint(0, 64, (256,))] += 0.9
for name, p in [("torch.rand (as get_inputs)", torch.rand(256, 64)),
                ("softmax(randn) policy", torch.softmax(torch.randn(256, 64), -1)),
                ("softmax(3*randn) peaked", torch.softmax(3 * torch.randn(256, 64), -1)),
                ("label-smoothed one-hot (0.1)", smooth)]:
    out = torch.empty(256)
    kern[(256,)](out, p.contiguous(), 256, 64, XBLOCK=1)
    ref = m(p); e = (out - ref).abs()
    print(f"{name:30s}: mean entropy {ref.mean():.3f}, max abs err {e.max():.3g}, rel {(e / ref.abs()).max():.1%}, "
          f"rows off >1e-4: {(e > 1e-4).float().mean():.0%}")
