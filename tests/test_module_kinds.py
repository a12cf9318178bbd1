"""The cascade on modules users really write: no false rejection of the baseline's own kernels (A/A).

Randomness (dropout), several outputs of mixed dtypes, buffers, in-place updates of inputs, integer inputs,
half precision and a training step with gradients: each kernel, put back as its own candidate, must pass
every gate that can run here.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


class Dropout(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.d = torch.nn.Dropout(0.5)

    def forward(self, x):
        return self.d(x * 2).relu()


class Multi(torch.nn.Module):
    def forward(self, x):
        return x.softmax(-1), x.argmax(-1), (x * 2).sum()


class Inplace(torch.nn.Module):
    def forward(self, x):
        x.add_(1.0)
        return x * 2


class Emb(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.e = torch.nn.Embedding(10, 8)

    def forward(self, idx):
        return torch.relu(self.e(idx)) * 3


class Gelu(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x) * x.sigmoid()


class GraphBreak(torch.nn.Module):
    def forward(self, x):
        y = torch.relu(x) + 1
        torch._dynamo.graph_break()
        return torch.softmax(y, -1)


class DictOut(torch.nn.Module):
    def forward(self, x):
        return {"a": x.sin() * 2, "b": x.sum(-1)}


class ScalarIn(torch.nn.Module):
    def forward(self, x, s):
        return torch.tanh(x * s)


class Log(torch.nn.Module):
    def forward(self, x):
        return torch.log(x) * 2  # NaN where x < 0: positions must match, values are not compared


def _conv_channels_last():
    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU()).to(
        memory_format=torch.channels_last)


def _mlp():
    return torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.GELU(), torch.nn.LayerNorm(16))


CASES = {
    "dropout-train": (lambda: Dropout().train(), lambda: (torch.randn(8, 16),), False),
    "multi-output": (Multi, lambda: (torch.randn(4, 16),), False),
    "batchnorm-eval": (lambda: torch.nn.BatchNorm1d(16).eval(), lambda: (torch.randn(8, 16),), False),
    "batchnorm-train": (lambda: torch.nn.BatchNorm1d(16).train(), lambda: (torch.randn(8, 16),), False),
    "inplace-input": (Inplace, lambda: (torch.randn(4, 16),), False),
    "embedding": (Emb, lambda: (torch.randint(0, 10, (4, 5)),), False),
    "bf16": (Gelu, lambda: (torch.randn(4, 16, dtype=torch.bfloat16),), False),
    "fp16": (Gelu, lambda: (torch.randn(4, 16, dtype=torch.float16),), False),
    "training-step": (_mlp, lambda: (torch.randn(4, 16, requires_grad=True),), True),
    "graph-break": (GraphBreak, lambda: (torch.randn(4, 8),), False),
    "dict-output": (DictOut, lambda: (torch.randn(4, 8),), False),
    "scalar-input": (ScalarIn, lambda: (torch.randn(4, 8), 0.5), False),
    "nan-output": (Log, lambda: (torch.randn(4, 8),), False),
    "channels-last": (_conv_channels_last, lambda: (torch.randn(2, 3, 5, 5).to(memory_format=torch.channels_last),),
                      False),
    "transposed-input": (Log, lambda: (torch.rand(8, 4).t(),), False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_baseline_kernels_pass_their_own_cascade(name, backend):
    factory, inputs, training = CASES[name]
    torch.manual_seed(0)
    module = factory().to(backend.device)
    args = tuple(x.to(backend.device) if isinstance(x, torch.Tensor) else x for x in inputs())
    session = EvaluationSession(problem_from_objects(module, args, name), Settings(seeds=2, training=training),
                                backend)
    assert session.captured.triton_kernels, "nothing to check"
    for graph, kernel in session.captured.triton_kernels:
        result = session.evaluate(Candidate((kernel,), graph.kernels[kernel].source, origin="a/a"), perf=False)
        assert result.decision == "verified", f"{name} {graph.role} {kernel}: {result.reason}"
        assert [g.gate for g in result.gates] == ["static", "correctness", "fp64"]
