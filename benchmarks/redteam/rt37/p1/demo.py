# Real use: sliding-window (local) causal attention mask, window 4 and 8, with -inf and finfo.min.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_window_leak.py"), "triton_per_fused__softmax_add_mul_0")
torch.manual_seed(0); m = prob.Model(32)
i = torch.arange(16)[:, None]; j = torch.arange(16)[None, :]
def window(w, val):
    allowed = (i - j >= 0) & (i - j < w)
    return torch.zeros(2, 1, 16, 16).masked_fill(~allowed, val)
MIN = torch.finfo(torch.float32).min
for name, mk in [("sliding window 4, -inf", window(4, float("-inf"))),
                 ("sliding window 8, finfo.min (HF Mistral)", window(8, MIN)),
                 ("causal 0/-inf (the probe's)", window(16, float("-inf"))),
                 ("get_inputs bias", torch.randn(2, 1, 16, 16))]:
    scores = torch.randn(2, 2, 16, 16) * 4
    ref = m(scores, mk)
    out = torch.empty(2, 2, 16, 16)
    kern[(64,)](out, scores, mk.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
    outside = (mk[0, 0] != 0).float()
    print(f"   attention outside the window: ref {(ref*outside).sum(-1).mean():.4f} cand {(out*outside).sum(-1).mean():.4f}")
