"""ImageNet-style input normalisation of an image batch (pixels in [0, 1]), followed by a ReLU-free
affine stem: (img - mean) / std per channel, mean / std registered buffers."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1))

    def forward(self, img):
        return (img - self.mean) / self.std


def get_inputs():
    return [torch.rand(2, 3, 32, 32)]


def get_init_inputs():
    return []
