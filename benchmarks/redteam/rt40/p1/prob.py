"""Masked NLL loss over time-major (T, B) tensors, as in the PyTorch chatbot tutorial's maskNLLLoss
(seq2seq decoders, RNNs with batch_first=False, fairseq/torchaudio-style time-major layouts):
logits (T, B, V), target (T, B) int64, mask (T, B) bool (True = a real token, False = padding)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, logits, target, mask):
        nll = -torch.log_softmax(logits, -1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
        m = mask.to(nll.dtype)
        return (nll * m).sum() / m.sum()


def get_inputs():
    return [torch.randn(12, 4, 16), torch.randint(0, 16, (12, 4)), torch.rand(12, 4) < 0.8]


def get_init_inputs():
    return []
