# Real use: eager attention with a KV cache and T > 1 new tokens (chunked prefill, speculative decoding's verify
# pass, a multi-token step after a cached prompt): HF's 4-D mask (B,1,T,S), S = past + T, query i sees keys
# 0..past+i, finfo.min beyond (_prepare_4d_causal_attention_mask_with_cache_position); also a static cache
# (S = max_cache_len, slots past past+T masked too).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
K = "triton_per_fused__softmax_add_0"
torch.manual_seed(0); m = prob.Model(); B, H, T, S = 2, 2, 8, 24
mn = torch.finfo(torch.float32).min
def cache_mask(past):
    i = torch.arange(T)[:, None]; j = torch.arange(S)[None]
    return torch.zeros(B, 1, T, S).masked_fill(~(j <= past + i), mn)
kern = load(os.path.join(d, "cand_offset_causal_leak.py"), K)
for name, am in [("dynamic cache, past=16 (S = past + T)", cache_mask(16)), ("static cache, past=10 (24 slots)", cache_mask(10)),
                 ("static cache, past=3", cache_mask(3)), ("get_inputs", prob.get_inputs()[1])]:
    s = torch.randn(B, H, T, S); ref = m(s, am)
    out = torch.empty(B, H, T, S)
    kern[(32,)](out, s.contiguous(), am.contiguous(), 32, 24, XBLOCK=1)
    report(f"{name}", out, ref, "probabilities")
    allowed = (am == 0).expand(B, H, T, S)
    print("   mass on keys the mask forbids (future tokens / empty slots):", (out * (~allowed)).sum(-1).mean().item())
