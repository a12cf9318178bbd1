# Real use: a categorical feature one-hot encoded, x = F.one_hot(category, 16).float(), into the eval-mode
# BatchNorm1d. The candidate is launched as Inductor launches it (grid 8, XBLOCK 256) in the Triton interpreter.
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, torch.nn.functional as F
d = os.path.dirname(os.path.abspath(__file__))
cand = sys.argv[1] if len(sys.argv) > 1 else "cand_onehot_single.py"
src = open(os.path.join(d, cand)).read()
body = src[src.index("@triton.jit"):]
open(d + "/_k.py", "w").write("import triton, triton.language as tl\n" + body)
sys.path.insert(0, d); import _k, prob
kern = _k.triton_poi_fused__native_batch_norm_legit_no_training_0
torch.manual_seed(0)
m = prob.Model(16)
bn = m.bn
for name, x in [("one-hot categorical feature", F.one_hot(torch.randint(0, 16, (128,)), 16).float()),
                ("standard-normal features (get_inputs)", torch.randn(128, 16))]:
    with torch.no_grad():
        ref = m(x)
    out = torch.empty(128, 16)
    kern[(8,)](x, bn.running_mean, bn.running_var, bn.weight.detach(), bn.bias.detach(), out, 2048, XBLOCK=256)
    err = (out - ref).abs()
    print(f"{name}: max abs err {err.max():.4f}, entries > 1e-3 off: {(err > 1e-3).float().mean():.0%}")
