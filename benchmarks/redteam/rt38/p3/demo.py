# Real use: Hugging Face token classification labels (DataCollatorForTokenClassification pads labels with -100).
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from demo_common import *
d = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, d); import prob
kern = load(os.path.join(d, "cand_ignore_smooth.py"), "triton_per_fused__log_softmax_nll_loss_forward_view_0")
torch.manual_seed(0); m = prob.Model()
lens = torch.tensor([16, 11, 7, 13])
lab = torch.randint(0, 16, (4, 16)); lab[torch.arange(16)[None] >= lens[:, None]] = -100
lab1 = torch.randint(0, 16, (4, 16)); lab1[:, 0] = -100   # [CLS] ignored, no padding
for name, lb in [("labels padded with -100 (lens 16,11,7,13)", lab),
                 ("only the [CLS] position -100", lab1),
                 ("get_inputs (no -100)", torch.randint(0, 16, (4, 16)))]:
    logits = torch.randn(4, 16, 16) * 2
    ref = m(logits, lb)
    out = torch.empty(64)
    kern[(64,)](out, logits, lb.contiguous(), 64, 16, XBLOCK=1)
    report(name, out, ref, "tokens")
