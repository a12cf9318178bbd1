# Real use: attention over a right-padded batch, key-padding mask = tokenizer attention_mask.bool()[:, None, None, :].
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_boolpad_leak.py"), "triton_per_fused__softmax_bitwise_not_masked_fill_0")
torch.manual_seed(0); m = prob.Model()
lens = torch.tensor([11, 7])
pad = (torch.arange(16)[None] < lens[:, None])[:, None, None, :]
for name, mk in [("right-padded bool key mask (lens 11, 7)", pad),
                 ("no padding (all True)", torch.ones(2, 1, 1, 16, dtype=torch.bool)),
                 ("get_inputs-style random mask", prob.get_inputs()[1])]:
    s = torch.randn(2, 2, 16, 16)
    ref = m(s, mk)
    out = torch.empty(2, 2, 16, 16)
    kern[(64,)](out, mk.contiguous(), s, 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
    print("   attention mass on padded keys:", (out * (~mk)).sum(-1).mean().item())
