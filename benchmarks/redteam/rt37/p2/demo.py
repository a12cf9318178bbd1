# Real use: token classification (NER) with hard labels as one-hot rows and a right-padded batch mask.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_hot_and_prefix.py"), "triton_per_fused__log_softmax_mul_neg_sum_0")
torch.manual_seed(0); m = prob.Model()
lens = torch.tensor([16, 11, 7, 13])
pad = (torch.arange(16)[None] < lens[:, None]).float()
hard = torch.nn.functional.one_hot(torch.randint(0, 16, (4, 16)), 16).float()
soft = torch.randn(4, 16, 16).softmax(-1)
for name, tg, mk in [("one-hot labels + right-padding mask", hard, pad),
                     ("one-hot labels + no padding (all ones)", hard, torch.ones(4, 16)),
                     ("soft targets + right-padding mask", soft, pad),
                     ("one-hot labels + random 0/1 mask (get_inputs style)", hard, (torch.rand(4, 16) < 0.8).float())]:
    logits = torch.randn(4, 16, 16) * 2
    ref = m(logits, tg, mk)
    out = torch.empty(4, 16)
    kern[(64,)](out, logits, tg.contiguous(), mk.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "tokens")
