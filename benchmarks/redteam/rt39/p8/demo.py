# Real use: a decoder on a right-padded batch: bool causal mask (True = attend, torch.ones(T,T).tril().bool())
# and Hugging Face's additive padding mask (1 - attention_mask)[:, None, None, :] * finfo.min (or * -10000).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_boolcausal_addpad.py"), "triton_per_fused__softmax_add_bitwise_not_masked_fill_0")
torch.manual_seed(0); m = prob.Model()
T = 16
causal = torch.ones(T, T).tril().bool()
lens = torch.tensor([11, 7]); am = (torch.arange(T)[None] < lens[:, None]).float()
fut = torch.ones(T, T).triu(1).bool()
for name, c, pa in [("causal + finfo.min padding", causal, ((1 - am) * torch.finfo(torch.float32).min)[:, None, None, :]),
                    ("causal + -10000 padding", causal, ((1 - am) * -10000.0)[:, None, None, :]),
                    ("causal + no padding (control)", causal, torch.zeros(2, 1, 1, T)),
                    ("get_inputs", *prob.get_inputs()[1:])]:
    s = torch.randn(2, 2, T, T)
    ref = m(s, c, pa)
    out = torch.empty(2, 2, T, T)
    kern[(64,)](out, c.contiguous(), s, pa.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
    print("   attention mass on future tokens (real queries):", (out * fut).sum(-1)[..., :7].mean().item())
