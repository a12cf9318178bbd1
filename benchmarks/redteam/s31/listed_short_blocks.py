"""Inductor's own reduction under a config its max-autotune list holds, with a longer sequential chain than the
baseline's: R0_BLOCK=4 on rows the baseline reduces in lanes of 2048 or 16384.  Each lane adds rnumel / 4 terms in
sequence; where the terms are nearly equal (values near 1, probability rows) their small parts fall below half an
ulp of the running sum.  Within tolerance of the baseline, tens to hundreds of times farther from the float64 truth
(softmax over rows of 16384: 255 float32 epsilons against the baseline's 0.5, measured on the CPU interpreter).
The judge classes such a config a longer chain and applies the precision check (docs/gates.md, "Certified
reorder"; tests/test_longer_chain.py): both refused.

    python benchmarks/redteam/s31/listed_short_blocks.py      (about 2 minutes on the CPU interpreter)
"""

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from pytest_kernelopt.backends import prepare  # noqa: E402

prepare("auto")

import torch  # noqa: E402

from pytest_kernelopt import tuner  # noqa: E402
from pytest_kernelopt.backends import select_backend  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402


class NearOneSum(torch.nn.Module):
    def forward(self, t):
        return (1.0 + 1e-5 * torch.sigmoid(t)).sum(-1)


class Softmax(torch.nn.Module):
    def forward(self, t):
        return torch.softmax(t, -1)


def main() -> None:
    backend = select_backend("auto")
    for module, shape in ((NearOneSum(), (2, 4096)), (Softmax(), (4, 16384))):
        torch._dynamo.reset()
        x = torch.randn(*shape, device=backend.device)
        session = EvaluationSession(problem_from_objects(module, (x,), type(module).__name__),
                                    Settings(seeds=2, base_seed=3), backend)
        ((graph, name),) = session.captured.triton_kernels
        (config,) = tuner.propose_configs(graph, name, 1)
        cand = dataclasses.replace(config, configs=({**dict(config.configs[0]), "XBLOCK": 1, "R0_BLOCK": 4,
                                                     "num_warps": 1, "num_stages": 1},))
        res = session.evaluate(cand, perf=False)
        print(f"{type(module).__name__} {shape}, R0_BLOCK=4: {res.decision} "
              f"({res.gate('correctness').numbers.get('provenance')}): {res.reason[:300]}", flush=True)


if __name__ == "__main__":
    main()
