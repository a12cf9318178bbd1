# Runs cand_mask.py's body in the plain Triton interpreter as Inductor launches it (XBLOCK 1, grid = rows)
# on (a) scores as get_inputs draws them and (b) real attention scores with a key-padding mask and a causal
# mask, masked with -inf (masked_fill) or with finfo.min (Hugging Face's additive mask), against the eager module.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
src = open(d + "/cand_mask.py").read()
hdr = ("import triton, triton.language as tl\n"
       "from torch._inductor.runtime import triton_helpers\n"
       "from torch._inductor.runtime.triton_helpers import math as tl_math\n"
       "libdevice = tl.math\n")
open(d + "/_k.py", "w").write(hdr + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused__softmax_abs_all_amax_eq_mul_ne_sub_0
m = prob.Model()

def run(scores):
    out = torch.empty_like(scores)
    rows = scores.numel() // 64
    kern[(rows,)](out, scores.contiguous(), rows, 64, XBLOCK=1)
    return out

torch.manual_seed(0)
B, H, T, D = 2, 4, 32, 64
q, k = torch.randn(B, H, T, D), torch.randn(B, H, 64, D)
raw = q @ k.transpose(-1, -2)                         # (2, 4, 32, 64): 32 queries over 64 keys
lengths = torch.tensor([40, 64])                      # batch 0 has 24 padded keys, batch 1 none
pad = torch.arange(64)[None, :] >= lengths[:, None]    # (B, 64)
causal = torch.arange(64)[None, :] > (torch.arange(32)[:, None] + 32)   # queries 32..63 of a 64-token prefix
cases = [
    ("get_inputs (randn * 8)", prob.get_inputs()[0]),
    ("q @ k^T, no mask", raw),
    ("key padding, masked_fill(-inf)", raw.masked_fill(pad[:, None, None, :], float("-inf"))),
    ("key padding, + finfo.min (HF)", raw + pad[:, None, None, :].float() * torch.finfo(torch.float32).min),
    ("causal, masked_fill(-inf)", raw.masked_fill(causal, float("-inf"))),
]
for name, s in cases:
    ref = m(s); out = run(s)
    e = (out - ref).abs()
    leak = out[..., :].masked_select(s <= -1e30).sum() / max(1, (s <= -1e30).any(-1).sum().item())
    print(f"{name:32s}: max abs err {e.max():.3g}, positions off >1e-4: {(e > 1e-4).float().mean():.1%}, "
          f"rows off: {(e.amax(-1) > 1e-4).float().mean():.1%}, probability mass on masked keys per masked row: {leak:.3f}")
