# Real use: sentence-transformers mean pooling over a batch with NO padding (equal-length sequences,
# fixed-length chunks): the tokenizer's attention_mask is all ones.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, sys.argv[1] if len(sys.argv) > 1 else "cand_allones.py"), "triton_per_fused_clamp_div_mul_sum_unsqueeze_1")
torch.manual_seed(0); m = prob.Model()
lens = torch.tensor([16, 11, 7, 16, 3, 9, 14, 5])
for name, mask in [("no padding (all ones)", torch.ones(8, 16)),
                   ("right padding", (torch.arange(16)[None] < lens[:, None]).float()),
                   ("get_inputs keep-mask", (torch.rand(8, 16) > 0.2).float())]:
    emb = torch.randn(8, 16, 32)
    ref = m(emb, mask)
    out = torch.empty(8, 32)
    kern[(256,)](out, emb, mask, mask.sum(1).contiguous(), 256, 16, XBLOCK=1)
    report(name, out, ref, "entries")
