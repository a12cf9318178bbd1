# Streaming decoding with the SSM step: each sequence starts with reset() (h = 0) and feeds 32 tokens.
# Kernel 1 (the state update + output) is cand_fresh.py's body in the plain Triton interpreter, launched as
# Inductor launches it (XBLOCK 1, grid 256); kernel 0 (the decay) is computed by torch as Inductor's does.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, torch.nn.functional as F
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_fresh.py"
src = open(os.path.join(d, cand)).read()
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + src[src.index("@triton.jit"):])
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused_add_copy__exp_mul_neg_softplus_sum_unsqueeze_1

ref, cm = prob.Model(), prob.Model()
torch.manual_seed(0)
with torch.no_grad():
    for seq in range(3):
        ref.reset(); cm.reset()
        worst = []
        for t in range(32):
            x = torch.randn(4, 64)
            y_ref = ref(x)
            decay = torch.exp(-F.softplus(cm.a))
            y = torch.empty(4, 64)
            kern[(256,)](decay, cm.h, x, cm.b, cm.c, y, cm.h, 256, 16, XBLOCK=1)
            e = (y - y_ref).abs()
            worst.append((t + 1, e.max().item(), (e > 1e-3).float().mean().item()))
        print(f"sequence {seq}: " + "; ".join(f"token {t}: max abs {m:.3g}, off>1e-3 {p:.0%}" for t, m, p in worst
                                                if t in (1, 2, 4, 8, 16, 32)))
    # control: the same loop without reset (the state the judge finds) is exact
    ref.reset(); cm.reset(); x = torch.randn(4, 64); ref(x)
    decay = torch.exp(-F.softplus(cm.a)); y = torch.empty(4, 64)
    cm.h.copy_(ref.h)   # start both from a warm state
    x = torch.randn(4, 64); y_ref = ref(x)
    kern[(256,)](decay, cm.h, x, cm.b, cm.c, y, cm.h, 256, 16, XBLOCK=1)
    print(f"control, from a warm state (as the judge finds the module): max abs {(y - y_ref).abs().max():.3g}")
