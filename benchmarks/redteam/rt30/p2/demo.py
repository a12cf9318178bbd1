# The LayerNorm kernel (candidate, Triton interpreter, launched as Inductor launches it: grid 64, XBLOCK 1)
# against the eager module, on (4, 16, 64) activations. usage: python demo.py [cand_dupbatch.py]
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_dupbatch.py"
src = open(os.path.join(d, cand)).read()
src = src[src.index("@triton.jit"):].replace("libdevice.rsqrt", "tl.rsqrt")   # libdevice has no interpreter binding outside the harness
open(d + "/_k.py", "w").write("import triton, triton.language as tl\nfrom torch._inductor.runtime.triton_helpers import libdevice\n" + src)
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused_native_layer_norm_0
torch.manual_seed(0)
m = prob.Model()
with torch.no_grad():
    m.norm.weight.copy_(1 + 0.1 * torch.randn(64)); m.norm.bias.copy_(0.1 * torch.randn(64))   # a trained norm

def run(x):
    out = torch.empty_like(x)
    kern[(64,)](x, m.norm.weight, m.norm.bias, out, 64, 64, XBLOCK=1)
    return out

prompt = torch.randn(1, 16, 64)
cases = {
    "random batch (as get_inputs draws)": torch.randn(4, 16, 64),
    "one prompt, 4 samples: prompt.repeat_interleave(4, 0) (HF generate num_return_sequences=4 / beam search start)": prompt.repeat_interleave(4, 0),
    "2 prompts x 2 samples each: repeat_interleave(2, 0)": torch.randn(2, 16, 64).repeat_interleave(2, 0),
    "test-time duplicates: torch.cat([a, a, b, c])": (lambda a: torch.cat([a, a, torch.randn(2, 16, 64)]))(torch.randn(1, 16, 64)),
}
with torch.no_grad():
    for name, x in cases.items():
        x = x.contiguous()
        ref = m(x); out = run(x)
        err = (out - ref).abs()
        per_item = [f"{err[b].max().item():.3g}" for b in range(4)]
        print(f"{name}:\n  max abs err {err.max().item():.3g}, positions off >1e-3: {(err > 1e-3).float().mean().item():.1%}, per batch item max err {per_item}")
