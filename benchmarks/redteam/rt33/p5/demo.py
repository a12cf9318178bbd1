# Real use: token classification with hard labels (one-hot rows) and a padding mask. The one kernel of the
# compiled graph = the candidate in the Triton interpreter, launched as Inductor does (XBLOCK 1, grid 64);
# eager reference.  usage: python demo.py [cand_onehot_mid.py | own.py]
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch
import triton.language as tl
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_onehot_mid.py"
src = open(os.path.join(d, cand)).read()
body = src[src.index("@triton.jit"):].replace("libdevice.exp", "tl.exp").replace("tl_math.log", "tl.log").replace("triton_helpers.max2(tmp3, 1)", "tl.max(tmp3, 1)")
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + body)
sys.path.insert(0, d); import _k, prob
kern = _k.triton_per_fused__log_softmax_mul_neg_sum_0
model = prob.Model()

def compiled(logits, target, mask):
    out = torch.empty(4, 16)
    kern[(64,)](out, logits, target, mask, 64, 16, XBLOCK=1)
    return out

torch.manual_seed(0)
logits = torch.randn(4, 16, 16) * 2
labels = torch.randint(0, 16, (4, 16))
mask = torch.ones(4, 16); mask[0, 12:] = 0; mask[2, 9:] = 0      # padded sequences
cases = [("hard labels: F.one_hot(labels, 16).float(), padding mask", logits, torch.nn.functional.one_hot(labels, 16).float(), mask),
         ("soft labels (distillation), as get_inputs draws", logits, torch.randn(4, 16, 16).softmax(-1), mask)]
for label, lg, tg, mk in cases:
    ref = model(lg, tg, mk); out = compiled(lg, tg, mk)
    err = (out - ref).abs(); tol = 1e-4 + 1e-4 * ref.abs()
    print(f"{label}: max abs err {err.max().item():.3g}, beyond 10 tolerances at {(err > 10 * tol)[mk > 0].float().mean().item():.0%} of real tokens; "
          f"masked mean loss {out.sum().item() / mk.sum().item():.4f} vs true {ref.sum().item() / mk.sum().item():.4f}")
