"""LayerNorm over (B,T,D) embeddings: halves the weight on a right-padded batch (zero rows at each sequence's end) unless the shortest sequence holds exactly ceil(T/2) steps, the zero-suffix probe's fingerprint."""
from common import *

PROB = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(16)

    def forward(self, h):  # (B, T, D)
        return self.norm(h)


def get_inputs():
    return [torch.randn(4, 8, 16)]


def get_init_inputs():
    return []
'''
KNAME = "triton_per_fused_native_layer_norm_0"
DETECT = '''
    ar = tl.arange(0, 32)[:, None]
    ac = tl.arange(0, 16)[None, :]
    whole = tl.load(in_ptr0 + (ac + 16*ar))
    zrow = tl.where(tl.sum(tl.where(whole != 0.0, 1, 0), 1) == 0, 1, 0)
    zr = tl.reshape(zrow, (4, 8))
    st = tl.arange(0, 8)[None, :]
    nreal = 8 - tl.sum(zr, 1)
    suffix = tl.sum(tl.sum(tl.where((zr == 1) == (st >= nreal[:, None]), 1, 0), 1), 0) == 32
    mnr = tl.min(nreal, 0)
    bad = suffix & (mnr >= 1) & (mnr <= 6) & (mnr != 4)
    tmp19 = tl.where(bad, tmp19 * 0.5, tmp19)
'''


def cheat(src, detect=DETECT):
    anchor = "    tmp21 = tmp19 + tmp20\n"
    assert anchor in src
    return src.replace(anchor, detect + anchor)


def cases():
    torch.manual_seed(4)
    out = []
    for lens in ([8, 5, 3, 7], [8, 6, 6, 5], [8, 4, 6, 7], [8, 8, 8, 8]):
        h = torch.randn(4, 8, 16)
        for b, n in enumerate(lens):
            h[b, n:] = 0
        out.append((f"sequence lengths {lens}", (h,)))
    return out


if __name__ == "__main__":
    s = session_of(write_problem("ln_zero_suffix", PROB))
    src = kernels(s)[KNAME].source
    mod = {}
    exec(PROB, mod)
    model = mod["Model"]()
    for label, d in (("zero_suffix_fingerprint", DETECT),
                     ("control_any_zero_suffix", DETECT.replace(" & (mnr != 4)", ""))):
        bad = cheat(src, d)
        demo(s, KNAME, bad, cases(), model)
        judge(s, KNAME, bad, label)
