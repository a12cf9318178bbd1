# Real use: timm Mixup(mixup_alpha=0, cutmix_alpha=0, label_smoothing=0.1, num_classes=16) -> targets
# smoothed one-hot rows (0.9 + 0.1/16 at the label, 0.1/16 elsewhere), loss = SoftTargetCrossEntropy(x, target).
# The candidate is launched as Inductor launches it (grid 64, XBLOCK 1) in the Triton interpreter.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, torch.nn.functional as F
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_smoothed.py"
src = open(os.path.join(d, cand)).read()
body = src[src.index("@triton.jit"):].replace("libdevice.exp", "tl.exp").replace("tl_math.log", "tl.log").replace("triton_helpers.max2(tmp3, 1)", "tl.max(tmp3, 1)")
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + body)
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused__log_softmax_mul_neg_sum_0
torch.manual_seed(0)
m = prob.Model()
def smoothed(labels, C=16, eps=0.1):  # timm.data.mixup.one_hot(...) with smoothing, as Mixup builds it
    off = eps / C; on = 1.0 - eps + off
    return torch.full((labels.size(0), C), off).scatter_(1, labels[:, None], on)
for name, yt in [("label-smoothed one-hot targets (timm)", smoothed(torch.randint(0, 16, (64,)))),
                 ("soft targets (get_inputs)", torch.randn(64, 16).softmax(-1))]:
    x = torch.randn(64, 16) * 2
    ref = m(x, yt)
    out = torch.empty(64)
    kern[(64,)](out, x, yt, 64, 16, XBLOCK=1)
    err = (out - ref).abs()
    print(f"{name}: max abs err {err.max():.4f}, samples > 1e-3 off: {(err > 1e-3).float().mean():.0%}, mean loss ref {ref.mean():.4f} cand {out.mean():.4f}")
