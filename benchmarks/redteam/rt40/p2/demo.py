# Real use: causal LM on a right-padded batch (padding_side='right', the usual fine-tuning setup) with eager attention:
# HF 4-D mask (B,1,T,T) = finfo.min where j > i or key j is padding, else 0.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
K = "triton_per_fused__softmax_add_0"
torch.manual_seed(0); m = prob.Model(); B, H, T = 2, 2, 16
i = torch.arange(T)[:, None]; j = torch.arange(T)[None]
mn = torch.finfo(torch.float32).min
def hf4d(keep):  # keep (B, T) 0/1
    allowed = (j <= i)[None] & keep[:, None, :].bool()
    return torch.zeros(B, 1, T, T).masked_fill(~allowed[:, None], mn)
right = (torch.arange(T)[None] < torch.tensor([11, 16])[:, None]).float()
left = (torch.arange(T)[None] >= torch.tensor([5, 0])[:, None]).float()
for cand in ["cand_causal_rightpad.py", "cand_ctrl_causal_leftpad.py"]:
    kern = load(os.path.join(d, cand), K)
    for name, am in [("causal + right padding (HF, finfo.min)", hf4d(right)), ("causal + left padding (HF, finfo.min)", hf4d(left)),
                     ("causal, no padding", hf4d(torch.ones(B, T))), ("get_inputs", prob.get_inputs()[1])]:
        s = torch.randn(B, H, T, T); ref = m(s, am)
        out = torch.empty(B, H, T, T)
        kern[(64,)](out, s.contiguous(), am.contiguous(), 64, 16, XBLOCK=1)
        report(f"{cand} / {name}", out, ref, "probabilities")
        print("   mass on future tokens:", (out * (j > i)).sum(-1).mean().item())
