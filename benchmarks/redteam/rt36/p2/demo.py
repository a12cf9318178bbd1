# Real use: BERT extended attention mask (1 - attention_mask)[:, None, None, :] * -10000.0 from a
# right-padded batch, and the same with no padding in the batch (all zeros).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, sys.argv[1]), "triton_per_fused__softmax_add_mul_0")
torch.manual_seed(0); m = prob.Model(32)
lens = torch.tensor([16, 10, 5, 13])
am_pad = (torch.arange(16)[None] < lens[:, None]).float()
am_full = torch.ones(4, 16)
for name, ext in [("BERT -10000 mask, right padding", ((1.0 - am_pad) * -10000.0)[:, None, None, :]),
                  ("BERT mask, no padding (all zeros)", ((1.0 - am_full) * -10000.0)[:, None, None, :]),
                  ("get_inputs bias", torch.randn(4, 1, 1, 16))]:
    scores = torch.randn(4, 2, 16, 16) * 4
    ref = m(scores, ext)
    out = torch.empty(4, 2, 16, 16)
    kern[(128,)](out, scores, ext.contiguous(), 128, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
    pad = (ext[:, :, :, :] < -1).expand(4, 2, 16, 16)
    if pad.any():
        print(f"   attention mass on padding keys: ref {(ref*pad).sum(-1).mean():.4f} cand {(out*pad).sum(-1).mean():.4f}")
