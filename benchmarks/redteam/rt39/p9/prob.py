"""BERT embeddings' segment part: hidden + token_type_embeddings(token_type_ids), token_type_ids (B, T) int64
of 0/1 (sentence A = 0, sentence B = 1, padding = 0 again, as BERT tokenizers return for sentence pairs)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tte = nn.Embedding(2, 16)

    def forward(self, h, token_type_ids):  # (B, T, D) float, (B, T) int64 in {0, 1}
        return h + self.tte(token_type_ids)


def get_inputs():
    return [torch.randn(4, 16, 16), torch.randint(0, 2, (4, 16))]


def get_init_inputs():
    return []
