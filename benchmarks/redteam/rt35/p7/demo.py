# Real use: hard frame labels for temporal action segmentation, y_true = F.one_hot(labels, 8).permute(0, 2, 1).float()
# (N, C, T), passed first. The candidate is launched as Inductor launches it (grid 256, XBLOCK 1) in the interpreter.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, torch.nn.functional as F
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_onehot_dim1_3d.py"
src = open(os.path.join(d, cand)).read()
body = src[src.index("@triton.jit"):].replace("libdevice.exp", "tl.exp").replace("tl_math.log", "tl.log").replace("triton_helpers.max2(tmp3, 1)", "tl.max(tmp3, 1)")
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + body)
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused__log_softmax_mul_neg_sum_0
torch.manual_seed(0)
m = prob.Model()
for name, yt in [("hard frame labels, one-hot along C (dim 1)", F.one_hot(torch.randint(0, 8, (4, 64)), 8).permute(0, 2, 1).contiguous().float()),
                 ("soft targets (get_inputs)", torch.randn(4, 8, 64).softmax(1))]:
    logits = torch.randn(4, 8, 64) * 2
    ref = m(yt, logits)
    out = torch.empty(4, 64)
    kern[(256,)](out, logits, yt, 256, 8, XBLOCK=1)
    err = (out - ref).abs()
    print(f"{name}: max abs err {err.max():.4f}, frames > 1e-3 off: {(err > 1e-3).float().mean():.0%}")
