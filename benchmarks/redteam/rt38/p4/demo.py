# Real use: token classification / SFT loss with hard one-hot labels on a LEFT-padded batch (padding_side="left").
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_hot_and_leftpad.py"), "triton_per_fused__log_softmax_mul_neg_sum_0")
torch.manual_seed(0); m = prob.Model()
lens = torch.tensor([16, 11, 7, 13])
lpad = (torch.arange(16)[None] >= 16 - lens[:, None]).float()
rpad = (torch.arange(16)[None] < lens[:, None]).float()
hard = torch.nn.functional.one_hot(torch.randint(0, 16, (4, 16)), 16).float()
smooth = hard * 0.9 + 0.1 / 16
for name, tg, mk in [("one-hot labels + left-padding mask", hard, lpad),
                     ("smoothed labels + left-padding mask", smooth, lpad),
                     ("one-hot labels + right-padding mask", hard, rpad),
                     ("one-hot labels + no padding", hard, torch.ones(4, 16))]:
    logits = torch.randn(4, 16, 16) * 2
    ref = m(logits, tg, mk)
    out = torch.empty(4, 16)
    kern[(64,)](out, logits, tg.contiguous(), mk.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "tokens")
