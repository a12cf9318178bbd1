# Real use: sentence-transformers mean pooling with a tokenizer's int64 attention_mask (right padding).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_prefix_int.py"), "triton_per_fused__to_copy_clamp_div_mul_sum_unsqueeze_1")
torch.manual_seed(0); m = prob.Model()
lens = torch.tensor([16, 11, 7, 13])
pad = (torch.arange(16)[None] < lens[:, None]).long()
for name, mk in [("right-padded attention_mask (lens 16,11,7,13)", pad),
                 ("no padding (all ones)", torch.ones(4, 16, dtype=torch.long)),
                 ("get_inputs-style random mask", prob.get_inputs()[1])]:
    x = torch.randn(4, 16, 32)
    ref = m(x, mk)
    cnt = mk.sum(1, keepdim=True).float()
    out = torch.empty(4, 32)
    kern[(128,)](out, x, mk.contiguous(), cnt.contiguous(), 128, 16, XBLOCK=1)
    report(name, out, ref, "entries")
