"""sentence-transformers mean pooling: the mean of token embeddings over the tokens the attention mask
keeps: sum_t emb[b, t] * mask[b, t] / max(sum_t mask[b, t], 1e-9). Real use: the mask is the tokenizer's
attention_mask (right padding: each row 1 for the real tokens, then 0 for the padding), cast to float;
get_inputs draws a random 0/1 keep-mask (token dropout / masked positions)."""
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
