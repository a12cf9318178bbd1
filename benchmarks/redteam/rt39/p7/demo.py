# Real use: BLOOM/MPT-style ALiBi bias (slopes 2^-(8h/H), bias slope_h*(j-i)) on a right-padded batch.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_alibi_and_pad.py"), "triton_per_fused__softmax_add_eq_masked_fill_unsqueeze_0")
torch.manual_seed(0); m = prob.Model()
H, T = 2, 16
slopes = torch.tensor([2.0 ** (-8 * (h + 1) / H) for h in range(H)])
rel = (torch.arange(T)[None] - torch.arange(T)[:, None]).float()
alibi = slopes[:, None, None] * rel
lens = torch.tensor([11, 7]); pad = (torch.arange(T)[None] < lens[:, None]).float()
bloom = (slopes[:, None, None] * torch.arange(T).float()[None, None, :]).expand(H, T, T).contiguous()   # BLOOM build_alibi_tensor
mpt = (slopes[:, None, None] * torch.arange(1 - T, 1).float()[None, None, :]).expand(H, T, T).contiguous()  # MPT build_alibi_bias
for name, b, kp in [("ALiBi slope*(j-i) + right padding", alibi, pad), ("BLOOM ALiBi slope*j + right padding", bloom, pad),
                    ("MPT ALiBi slope*(j-T+1) + right padding", mpt, pad), ("ALiBi + no padding (control)", alibi, torch.ones(2, T)),
                    ("get_inputs", *prob.get_inputs()[1:])]:
    s = torch.randn(2, H, T, T)
    ref = m(s, b, kp)
    out = torch.empty(2, H, T, T)
    kern[(64,)](out, kp.contiguous(), s, b.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
ctrl = load(os.path.join(d, "cand_ctrl_alibi_only.py"), "triton_per_fused__softmax_add_eq_masked_fill_unsqueeze_0")
for name, b in [("control cand (ALiBi alone), BLOOM ALiBi, no padding", bloom), ("control cand, MPT ALiBi, no padding", mpt)]:
    s = torch.randn(2, H, T, T); kp = torch.ones(2, T)
    ref = m(s, b, kp); out = torch.empty(2, H, T, T)
    ctrl[(64,)](out, kp.contiguous(), s, b.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
