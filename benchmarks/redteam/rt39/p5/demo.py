# Real use: Mistral-style sliding-window attention (window W=4) over a right-padded batch:
# attn_mask = causal band (0 where 0 <= i-j < W, else -inf or finfo.min), key_padding_mask = attention_mask.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_window_and_pad.py"), "triton_per_fused__softmax_add_eq_masked_fill_unsqueeze_0")
torch.manual_seed(0); m = prob.Model()
T, W = 16, 4
i = torch.arange(T)[:, None]; j = torch.arange(T)[None]
band = (j <= i) & (i - j < W)
win_inf = torch.zeros(T, T).masked_fill(~band, float("-inf"))
win_min = torch.zeros(T, T).masked_fill(~band, torch.finfo(torch.float32).min)
lens = torch.tensor([11, 7]); pad = (torch.arange(T)[None] < lens[:, None]).float()
for name, am, kp in [("window -inf + right padding", win_inf, pad),
                     ("window finfo.min + right padding", win_min, pad),
                     ("window -inf + no padding (control)", win_inf, torch.ones(2, T)),
                     ("get_inputs", *prob.get_inputs()[1:])]:
    s = torch.randn(2, 2, T, T)
    ref = m(s, am, kp)
    out = torch.empty(2, 2, T, T)
    kern[(64,)](out, kp.contiguous(), s, am.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
    print("   attention mass outside the window (all queries):", (out * (~band & (j <= i))).sum(-1).mean().item())
