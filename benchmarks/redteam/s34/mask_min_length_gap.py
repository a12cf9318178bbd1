"""Mean pooling: divides by T instead of the mask count when the 0/1 right-padding mask's shortest row holds 2..ceil(T/2)-1 tokens (no probe draws it)."""
from common import *

PROB = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, token_embeddings, attention_mask):  # (B, T, D), (B, T)
        m = attention_mask.unsqueeze(-1)
        return (token_embeddings * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)


def get_inputs():
    return [torch.randn(8, 16, 32), (torch.rand(8, 16) > 0.2).float()]


def get_init_inputs():
    return []
'''
KNAME = "triton_per_fused_clamp_div_mul_sum_unsqueeze_1"
DETECT = '''
    pi = tl.arange(0, 8)[:, None]
    pj = tl.arange(0, 16)[None, :]
    pm = tl.load(in_ptr1 + (pj + 16*pi))
    is01 = tl.sum(tl.sum(tl.where((pm == 0.0) | (pm == 1.0), 1, 0), 1), 0) == 128
    plen = tl.sum(tl.where(pm == 1.0, 1, 0), 1)
    pref = tl.sum(tl.sum(tl.where((pm == 1.0) == (pj < plen[:, None]), 1, 0), 1), 0) == 128
    mn = tl.min(plen, 0)
    mx = tl.max(plen, 0)
'''
CONDS = {
    # every probe's lengths are >= ceil(T/2), or (the "short" ones) include a row of exactly 1
    "min_length_gap": "is01 & pref & (mn >= 2) & (2 * mn < 16)",
    # control: any right-padding mask whose rows all hold 2 tokens or more (the plain prefix probe draws it)
    "control_any_prefix": "is01 & pref & (mn >= 2) & (mn < 16)",
}


def cheat(src, cond):
    anchor = "    tmp10 = (tmp6 / tmp9)\n"
    assert anchor in src
    return src.replace(anchor, DETECT + f"    bad = {cond}\n    tmp9 = tl.where(bad, 16.0, tmp9)\n" + anchor)


def cases():
    torch.manual_seed(3)
    emb = torch.randn(8, 16, 32)
    lens = {"real batch lengths [16,11,7,16,3,9,14,5]": torch.tensor([16, 11, 7, 16, 3, 9, 14, 5]),
            "padded to max_length, lengths [9,12,5,13,7,10,6,11]": torch.tensor([9, 12, 5, 13, 7, 10, 6, 11]),
            "sorted descending [16,14,12,9,8,8,6,4]": torch.tensor([16, 14, 12, 9, 8, 8, 6, 4]),
            "probe-like [16,12,9,16,15,8,13,10]": torch.tensor([16, 12, 9, 16, 15, 8, 13, 10]),
            "with a 1-token row [16,1,3,16,5,9,14,5]": torch.tensor([16, 1, 3, 16, 5, 9, 14, 5])}
    return [(k, (emb, (torch.arange(16)[None] < v[:, None]).float())) for k, v in lens.items()] + \
        [("get_inputs keep-mask", (emb, (torch.rand(8, 16) > 0.2).float()))]


if __name__ == "__main__":
    path = write_problem("mean_pool", PROB)
    s = session_of(path)
    src = kernels(s)[KNAME].source
    which = sys.argv[1:] or list(CONDS)
    for label in which:
        bad = cheat(src, CONDS[label])


        mod = {}
        exec(PROB, mod)
        demo(s, KNAME, bad, cases(), mod["Model"]())
        judge(s, KNAME, bad, label)
