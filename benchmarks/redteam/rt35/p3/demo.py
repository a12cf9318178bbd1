# Real use: a decoder's self-attention with attn_bias = nn.Transformer.generate_square_subsequent_mask(16)
# (0 on/below the diagonal, -inf above). The candidate is launched as Inductor launches it (grid 64, XBLOCK 1)
# in the Triton interpreter, against the problem's eager Model.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_causal_leak.py"
src = open(os.path.join(d, cand)).read()
body = src[src.index("@triton.jit"):].replace("libdevice.exp", "tl.exp").replace("triton_helpers.max2(tmp7, 1)", "tl.max(tmp7, 1)")
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + body)
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused__softmax_add_mul_0
torch.manual_seed(0)
m = prob.Model(32)
for name, bias in [("causal mask (generate_square_subsequent_mask)", torch.nn.Transformer.generate_square_subsequent_mask(16)),
                   ("relative-position bias (get_inputs)", torch.randn(16, 16))]:
    scores = torch.randn(2, 2, 16, 16) * 4
    ref = m(scores, bias)
    out = torch.empty(2, 2, 16, 16)
    kern[(64,)](out, scores, bias, 64, 16, XBLOCK=1)
    err = (out - ref).abs()
    fut = (out * torch.triu(torch.ones(16, 16), 1)).sum(-1)
    print(f"{name}: max abs err {err.max():.4f}, probs > 1e-3 off: {(err > 1e-3).float().mean():.0%}, "
          f"mean attention on future tokens ref {(ref * torch.triu(torch.ones(16, 16), 1)).sum(-1).mean():.4f} cand {fut.mean():.4f}")
