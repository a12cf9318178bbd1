# Real use: time-major (T, B) padding mask of a right-padded batch (chatbot tutorial maskNLLLoss).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
K = "triton_per_fused__log_softmax__to_copy_div_gather_mul_neg_squeeze_sum_unsqueeze_1"
torch.manual_seed(0); m = prob.Model(); T, B, V = 12, 4, 16
def run(cand, logits, target, mask):
    kern = load(os.path.join(d, cand), K)
    mx = logits.amax(-1); lse = (logits - mx[..., None]).exp().sum(-1).log()
    out = torch.empty(())
    kern[(1,)](out, target.contiguous(), logits.contiguous(), mx.contiguous(), lse.contiguous(), mask.contiguous(), 1, 48, XBLOCK=1)
    return out
lens = torch.tensor([12, 9, 7, 4])
tm = torch.arange(T)[:, None] < lens[None, :]            # (T, B) time-major, sorted as in the tutorial
tm2 = torch.arange(T)[:, None] < torch.tensor([5, 12, 8, 10])[None, :]  # unsorted lengths
rowpad = (torch.arange(B)[None, :] < torch.randint(1, B + 1, (T, 1))) # right padding along the last dim (probed)
for cand in ["cand_timemajor_pad.py", "cand_ctrl_rowpad.py"]:
    for name, mask in [("time-major padding, sorted", tm), ("time-major padding, unsorted", tm2), ("rows right-padded along B", rowpad), ("get_inputs", prob.get_inputs()[2])]:
        lg = torch.randn(T, B, V); tg = torch.randint(0, V, (T, B))
        ref = m(lg, tg, mask); out = run(cand, lg, tg, mask)
        print(f"{cand} / {name}: loss ref {ref.item():.4f} cand {out.item():.4f} (abs err {abs(out-ref).item():.4f})")
