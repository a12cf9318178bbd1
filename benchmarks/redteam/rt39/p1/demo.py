# Real use: BERT-style masked language modelling; DataCollatorForLanguageModeling sets labels = -100 at every
# position not selected for masking (~85%, scattered through the row), and at padding.
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_mid_ignore.py"), "triton_per_fused__log_softmax_nll_loss_forward_view_0")
torch.manual_seed(0); m = prob.Model()
B, T, C = 4, 16, 16
def run(name, labels):
    logits = torch.randn(B, T, C) * 2
    ref = m(logits, labels)
    out = torch.empty(B * T)
    kern[(64,)](out, logits.contiguous(), labels.contiguous(), 64, 16, XBLOCK=1)
    err = (out - ref).abs(); sel = labels.reshape(-1) != -100
    print(f"{name}: max abs err {err.max().item():.4f}, scored (non-ignored) tokens > 1e-3 off: "
          f"{(err[sel] > 1e-3).float().mean().item():.0%} of {int(sel.sum())}; all tokens off: {(err > 1e-3).float().mean().item():.0%}")
lab = torch.randint(0, C, (B, T))
mlm = lab.clone(); mlm[torch.rand(B, T) >= 0.15] = -100; mlm[:, 0] = -100
mlm[:, 1] = lab[:, 1]; mlm[:, 5] = lab[:, 5]   # make sure each row has a few masked (scored) tokens
run("MLM labels (-100 scattered mid-row)", mlm)
pad = lab.clone(); pad[:, 0] = -100; pad[0, 10:] = -100; pad[1, 13:] = -100
run("labels with -100 at [CLS] and right padding (what the probes make)", pad)
run("plain labels", lab)
