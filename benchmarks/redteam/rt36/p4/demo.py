# Real use: HF-style 4-D causal+padding mask built with torch.finfo(float32).min (Llama/Mistral eager
# attention, `_prepare_4d_causal_attention_mask`), left-padded batch for generation, and causal only.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_hf_finfo_leak.py"), "triton_per_fused__softmax_add_mul_0")
torch.manual_seed(0); m = prob.Model(32)
MIN = torch.finfo(torch.float32).min
causal = torch.triu(torch.ones(16, 16, dtype=torch.bool), 1)
def hf_mask(pad_left):
    keep = torch.arange(16)[None] >= torch.tensor(pad_left)[:, None]            # (B, T) left padding
    bad = causal[None] | ~keep[:, None, :]
    return torch.zeros(2, 1, 16, 16).masked_fill(bad[:, None], MIN)
fut = causal.float()
for name, mk in [("HF causal + left padding (finfo.min)", hf_mask([0, 5])),
                 ("HF causal only (finfo.min)", hf_mask([0, 0])),
                 ("causal 0/-inf (the probe's)", torch.zeros(2, 1, 16, 16).masked_fill(causal, float("-inf"))),
                 ("get_inputs bias", torch.randn(2, 1, 16, 16))]:
    scores = torch.randn(2, 2, 16, 16) * 4
    ref = m(scores, mk)
    out = torch.empty(2, 2, 16, 16)
    kern[(64,)](out, scores, mk.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "probabilities")
    print(f"   attention on future tokens: ref {(ref*fut).sum(-1).mean():.4f} cand {(out*fut).sum(-1).mean():.4f}")
