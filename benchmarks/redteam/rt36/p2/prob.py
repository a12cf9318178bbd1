"""BERT-style self-attention probabilities with an additive *extended* attention mask:
softmax(scores / sqrt(d) + ext_mask, dim=-1), scores (B, H, T, T), ext_mask (B, 1, 1, T).
Real use: HF BERT/RoBERTa (transformers < 4.x `get_extended_attention_mask`, and countless ports:
`ext = (1.0 - attention_mask[:, None, None, :]) * -10000.0`) from the tokenizer's right-padded
attention_mask -> each row 0 ... 0 -10000 ... -10000; with no padding in the batch (equal-length
sequences, packed pretraining chunks) the extended mask is all zeros. get_inputs draws a learned
per-key additive bias (a key-importance / ALiBi-like prior)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, head_dim=32):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, scores, ext_mask):
        return torch.softmax(scores * self.scale + ext_mask, dim=-1)


def get_inputs():
    return [torch.randn(4, 2, 16, 16) * 4, torch.randn(4, 1, 1, 16)]


def get_init_inputs():
    return [32]
