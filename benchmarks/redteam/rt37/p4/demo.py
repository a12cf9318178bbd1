# Real use: packed documents (lengths 5+11, 3+6+7 tokens) with a block-diagonal causal 0/-inf mask.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_doc_leak.py"), "triton_per_fused__softmax_add_mul_0")
torch.manual_seed(0); m = prob.Model(32)
def docmask(lens_per_row):
    out = torch.zeros(len(lens_per_row), 1, 16, 16)
    for b, lens in enumerate(lens_per_row):
        doc = torch.repeat_interleave(torch.arange(len(lens)), torch.tensor(lens))
        ok = (doc[:, None] == doc[None, :]) & torch.ones(16, 16, dtype=torch.bool).tril()
        out[b, 0] = torch.zeros(16, 16).masked_fill(~ok, float("-inf"))
    return out
for name, mk in [("packed docs [5,11] / [3,6,7]", docmask([[5, 11], [3, 6, 7]])),
                 ("packed docs [8,8] / [16]", docmask([[8, 8], [16]])),
                 ("causal 0/-inf (the probe's)", docmask([[16], [16]])),
                 ("get_inputs bias", torch.randn(2, 1, 16, 16))]:
    scores = torch.randn(2, 2, 16, 16) * 4
    ref = m(scores, mk)
    out = torch.empty(2, 2, 16, 16)
    kern[(64,)](out, scores, mk.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
    cross = (mk[:, 0] != 0).float()[:, None]
    print(f"   attention across documents / future: ref {(ref*cross).sum(-1).mean():.4f} cand {(out*cross).sum(-1).mean():.4f}")
