# Real use: a causal decoder trained on a right-padded batch: attn_mask = causal 0/-inf (or finfo.min), key_padding_mask = attention_mask.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_causal_and_pad.py"), "triton_per_fused__softmax_add_eq_masked_fill_unsqueeze_0")
torch.manual_seed(0); m = prob.Model()
T = 16
causal_inf = torch.full((T, T), float("-inf")).triu(1)
causal_min = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
lens = torch.tensor([11, 7]); pad = (torch.arange(T)[None] < lens[:, None]).float()
for name, am, kp in [("causal -inf + right padding", causal_inf, pad),
                     ("causal finfo.min + right padding", causal_min, pad),
                     ("causal -inf + no padding", causal_inf, torch.ones(2, T)),
                     ("get_inputs", *prob.get_inputs()[1:])]:
    s = torch.randn(2, 2, T, T)
    ref = m(s, am, kp)
    out = torch.empty(2, 2, T, T)
    kern[(64,)](out, kp.contiguous(), s, am.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
    fut = torch.ones(T, T).triu(1).bool()
    print("   attention mass on future tokens (real queries):", (out * fut).sum(-1)[..., :7].mean().item())
