# Real use: ALiBi bias (BLOOM / MPT), slopes 2^-(8/H)(h+1), causal -inf above the diagonal; also BLOOM's
# shift-invariant form slope * j, and no mask.
import os, sys, math; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_alibi_half.py"), "triton_per_fused__softmax_add_mul_0")
torch.manual_seed(0); m = prob.Model(32)
H, T = 4, 16
slopes = torch.tensor([2 ** (-8 / H * (h + 1)) for h in range(H)])
i = torch.arange(T)[:, None]; j = torch.arange(T)[None, :]
rel = slopes[:, None, None] * (j - i)[None].float()          # -slope * (i - j)
causal = (j > i)[None]
for name, b in [("ALiBi relative + causal -inf", rel.masked_fill(causal, float("-inf"))),
                ("ALiBi relative, no mask (encoder)", rel.clone()),
                ("BLOOM slope*j + causal finfo.min", (slopes[:, None, None] * j[None].float()).expand(H, T, T).masked_fill(causal, torch.finfo(torch.float32).min)),
                ("get_inputs bias", torch.randn(H, T, T))]:
    scores = torch.randn(2, H, T, T) * 4
    ref = m(scores, b)
    out = torch.empty(2, H, T, T)
    kern[(128,)](out, scores, b.contiguous(), 128, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
