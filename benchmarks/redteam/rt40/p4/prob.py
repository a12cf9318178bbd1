"""Top-k filtering of next-token logits (HF TopKLogitsWarper): tokens scoring below the k-th largest score of
their row are set to -inf.  The caller passes the threshold: kth = torch.topk(scores, k).values[..., -1:]."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, scores, kth):  # (B, V), (B, 1)
        return scores.masked_fill(scores < kth, float("-inf"))


def get_inputs():
    return [torch.randn(4, 64), torch.randn(4, 1)]


def get_init_inputs():
    return []
