# Real use: normalising the adjacency of undirected graphs (symmetric, 0/1 or weighted) for a GCN layer.
# Kernel 0 (degrees) in torch, kernel 1 = the candidate in the Triton interpreter, launched as Inductor does
# (XBLOCK 256, grid 4); eager reference.  usage: python demo.py [cand_sym.py | own.py]
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_sym.py"
src = open(os.path.join(d, cand)).read()
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + src[src.index("@triton.jit"):].replace("libdevice.rsqrt", "tl.rsqrt"))
sys.path.insert(0, d); import _k, prob
kern = _k.triton_poi_fused_add_eye_mul_rsqrt_unsqueeze_1
model = prob.Model()

def compiled(adj):
    deg = (adj + torch.eye(32)).sum(1).contiguous()
    out = torch.empty(32, 32)
    kern[(4,)](deg, adj, out, 1024, XBLOCK=256)
    return out

torch.manual_seed(0)
u = (torch.rand(32, 32) < 0.15).float().triu(1)
w = torch.rand(32, 32).triu(1)
cases = [("undirected 0/1 graph (A = A^T)", u + u.T),
         ("undirected weighted graph", w + w.T),
         ("directed graph / random matrix, as get_inputs draws", torch.rand(32, 32))]
for label, adj in cases:
    ref = model(adj); out = compiled(adj)
    err = (out - ref).abs(); tol = 1e-4 + 1e-4 * ref.abs()
    print(f"{label}: max abs err {err.max().item():.3g}, beyond 10 tolerances at {(err > 10 * tol).float().mean().item():.0%} of entries "
          f"({(err > 10 * tol)[ref != 0].float().mean().item():.0%} of nonzero entries)")
