# Real use: BLOOM/MPT on a right-padded batch: alibi slope_h*(j-i), causal 0/-inf, key padding 0/1.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
K = "triton_per_fused__softmax_add_eq_masked_fill_unsqueeze_0"
torch.manual_seed(0); m = prob.Model(); B, H, T = 2, 2, 16
i = torch.arange(T)[:, None]; j = torch.arange(T)[None]
slopes = torch.tensor([0.5, 0.25])
alibi = slopes[:, None, None] * (j - i).float()[None]
alibi_j = slopes[:, None, None] * j.float()[None].expand(1, T, T)
causal = torch.zeros(T, T).masked_fill(j > i, float("-inf"))
pad = (torch.arange(T)[None] < torch.tensor([11, 7])[:, None]).float()
for cand in ["cand_three.py", "cand_ctrl_alibi_pad.py", "cand_ctrl_causal_pad.py"]:
    kern = load(os.path.join(d, cand), K)
    for name, al, ca, kp in [("alibi(j-i) + causal + right padding", alibi, causal, pad),
                             ("alibi(j) + causal + right padding", alibi_j.contiguous(), causal, pad),
                             ("alibi + causal, no padding", alibi, causal, torch.ones(B, T)),
                             ("get_inputs", *prob.get_inputs()[1:])]:
        s = torch.randn(B, H, T, T); ref = m(s, al, ca, kp)
        out = torch.empty(B, H, T, T)
        kern[(64,)](out, kp.contiguous(), s, al.contiguous(), ca.contiguous(), 64, 16, XBLOCK=1)
        e = (out - ref).abs(); e = torch.nan_to_num(e, nan=0.0)
        print(f"{cand} / {name}: max abs err {e.max().item():.4f}, probabilities > 1e-3 off: {(e > 1e-3).float().mean().item():.0%}")
