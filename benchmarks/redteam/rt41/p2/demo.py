# Real use: GPT-2 batched generation with left padding and a KV cache: position_ids = attention_mask.cumsum(-1) - 1
# (HF prepare_inputs_for_generation), sliced to the T new tokens (speculative decoding's verify pass, chunked
# prefill): every row consecutive, rows starting at different positions (prompts of different lengths).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
K = "triton_poi_fused_add_embedding_0"
torch.manual_seed(0); m = prob.Model(); B, T = 4, 8
kern = load(os.path.join(d, "cand_leftpad_cache_pos.py"), K)
prompt_lens = torch.tensor([20, 13, 31, 7])
cases = [("left-padded batch, cache, T=8 new tokens", prompt_lens[:, None] + torch.arange(T)[None]),
         ("same prompt length (no padding)", torch.full((B, 1), 20) + torch.arange(T)[None]),
         ("no cache (arange(T))", torch.arange(T)[None].expand(B, T).contiguous()),
         ("get_inputs", prob.get_inputs()[1])]
for name, pos in cases:
    h = torch.randn(B, T, 16)
    with torch.no_grad(): ref = m(h, pos)
    out = torch.empty(B, T, 16)
    kern[(2,)](h.contiguous(), pos.contiguous(), m.wpe.weight.detach().contiguous(), out, 512, XBLOCK=256)
    report(name, out, ref, "entries")
