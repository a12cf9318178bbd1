# Real use: sentence embeddings from a right-padded tokenizer batch: attention_mask rows 1...1 0...0
# (lengths 3-16), cast to float. Kernel 0 (Inductor's own: the mask's row sums) then the candidate for
# kernel 1, launched as Inductor launches them, in the Triton interpreter, against the eager Model.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_padmean.py"
def load(path, name, mod):
    src = open(path).read()
    body = src[src.index("@triton.jit"):].replace("triton_helpers.maximum", "tl.maximum")
    open(f"{d}/{mod}.py", "w").write("import triton, triton.language as tl\n" + body)
    return getattr(__import__(mod), name)
sys.path.insert(0, d); import prob
k0 = load(f"{d}/dump/prob/triton_per_fused_sum_unsqueeze_0.py", "triton_per_fused_sum_unsqueeze_0", "_k0")
k1 = load(os.path.join(d, cand), "triton_per_fused_clamp_div_mul_sum_unsqueeze_1", "_k1")
torch.manual_seed(0)
m = prob.Model()
lengths = torch.randint(3, 17, (8,)); lengths[0] = 16
padmask = (torch.arange(16)[None, :] < lengths[:, None]).float()
for name, mask in [("tokenizer attention_mask, right padding", padmask),
                   ("random keep-mask (get_inputs)", (torch.rand(8, 16) > 0.2).float())]:
    emb = torch.randn(8, 16, 32)
    ref = m(emb, mask)
    s = torch.empty(8); out = torch.empty(8, 32)
    k0[(8,)](mask, s, 8, 16, XBLOCK=1)
    k1[(256,)](out, emb, mask, s, 256, 16, XBLOCK=1)
    err = (out - ref).abs()
    print(f"{name}: max abs err {err.max():.4f}, entries > 1e-3 off: {(err > 1e-3).float().mean():.0%}, "
          f"sentences off: {(err.amax(1) > 1e-3).sum().item()} of 8")
