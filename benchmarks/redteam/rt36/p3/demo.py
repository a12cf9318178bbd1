# Real use: timm Mixup(label_smoothing=0.2) with mixup off (or torch CrossEntropy-style smoothing 0.2
# materialised as soft targets) -> SoftTargetCrossEntropy. Smoothing 0.1 (the probe's) is shown too.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_smooth02.py"), "triton_per_fused__log_softmax_mul_neg_sum_0")
torch.manual_seed(0); m = prob.Model()
lab = torch.randint(0, 16, (64,))
def smooth(eps):  # timm's one_hot(..., on_value=1-eps+eps/C, off_value=eps/C)
    return torch.full((64, 16), eps / 16).scatter_(1, lab[:, None], 1 - eps + eps / 16)
for name, t in [("smoothing 0.2", smooth(0.2)), ("smoothing 0.3", smooth(0.3)), ("smoothing 0.1 (probe's)", smooth(0.1)),
                ("get_inputs teacher softmax", torch.randn(64, 16).softmax(-1))]:
    x = torch.randn(64, 16) * 2
    ref = m(x, t)
    out = torch.empty(64)
    kern[(64,)](out, x, t, 64, 16, XBLOCK=1)
    report(name, out, ref, "samples")
