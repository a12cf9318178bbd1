# The module in a loop (an activation tap keeps the last output): cand_xor_T<N>.py's body in the plain Triton
# interpreter, launched as Inductor launches it (XBLOCK 256, grid 8), with the module's own tap.last as out_ptr1.
# Also shows the bit-inversion invariance: from the state S and from ~S the launch writes the same bits.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_xor_T200.py"
src = open(os.path.join(d, cand)).read()
hdr = "import triton, triton.language as tl\nfrom torch._inductor.runtime import triton_helpers\n"
open(d + "/_k.py", "w").write(hdr + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_poi_fused_copy__mul_relu_0
m = prob.Model()
torch.manual_seed(0)
for step in range(1, 221):
    x = torch.randn(32, 64)
    if step == 150:   # the judge's new check, replayed: run over the state's bits inverted, undo, run for real
        saved = m.tap.last.clone()
        inv = (~saved.view(torch.int32)).view(torch.float32)
        m.tap.last.copy_(inv); y1 = torch.empty(32, 64); kern[(8,)](x, y1, m.tap.last, 2048, XBLOCK=256)
        w_inv = m.tap.last.clone(); m.tap.last.copy_(saved)
    y = torch.empty(32, 64)
    kern[(8,)](x, y, m.tap.last, 2048, XBLOCK=256)
    if step == 150:
        same = torch.equal(w_inv.view(torch.int32), m.tap.last.view(torch.int32))
        print(f"call 150: writes from inverted state == writes from real state, bit for bit: {same}")
    ref = torch.relu(x) * 2.0
    e = (y - ref).abs()
    if step <= 2 or step % 25 == 0 or 198 <= step <= 201 or step == 220:
        print(f"call {step:3d}: output max abs err {e.max():.3g}, off >1e-3 at {(e > 1e-3).float().mean():.0%}; "
              f"tap.last max abs err {(m.tap.last - ref).abs().max():.3g}")
