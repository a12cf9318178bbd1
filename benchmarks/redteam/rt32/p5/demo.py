# Autoregressive depth decoding in a loop, as in real use: build (or reset) the module, then one call per code
# (10 codes, the cache's length). The compiled graph's masked-softmax kernel is replaced by the candidate (run
# in the Triton interpreter, launched as Inductor launches it: grid 4, XBLOCK 1); everything else is computed
# as the graph does, and the eager module is the reference.  usage: python demo.py [cand_window3.py]
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_window3.py"
src = open(os.path.join(d, cand)).read()
open(d + "/_k.py", "w").write("import triton, triton.language as tl\nfrom torch._inductor.runtime import triton_helpers\nfrom torch._inductor.runtime.triton_helpers import libdevice, math as tl_math\ntriton_helpers.set_driver_to_cpu()\n" + src[src.index("@triton.jit"):].replace("libdevice.exp(", "tl.exp("))  # the interpreter has no libdevice.exp
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused__softmax_arange_bitwise_not_le_masked_fill_mul_permute_view_2
L = 10
for trial in range(3):
    torch.manual_seed(trial)
    ref, m = prob.Model(), prob.Model()
    print(f"== sequence {trial}")
    for t in range(L):
        q, k, v = torch.randn(4, 16), torch.randn(4, 16), torch.randn(4, 16)
        with torch.no_grad():
            y_ref = ref(q, k, v)
            idx = m.pos.view(1)
            m.k_cache.index_copy_(1, idx, k.unsqueeze(1)); m.v_cache.index_copy_(1, idx, v.unsqueeze(1))
            s = torch.einsum("hd,hld->hl", q, m.k_cache).contiguous()
            sums = torch.empty(4, 1)
            kern[(4,)](s, m.pos, sums, 4, L, XBLOCK=1)
            y = torch.einsum("hl,hld->hd", s / sums, m.v_cache)
            m.pos += 1
        e = (y - y_ref).abs().max().item()
        frac = ((y - y_ref).abs() > 1e-3).float().mean().item()
        print(f"code {t+1} (pos {t}): output max abs err {e:.3g} (off >1e-3 at {frac:.0%} of positions)")
