"""A launch config whose reduction order is less precise than any Inductor's autotuner runs.  A 4096-term row sum
under R0_BLOCK=1 is one sequential float32 sum (4.6x the baseline's relative error against the float64 truth on
seed 13, within tolerance).  R0_BLOCK=1 is below the baseline's own block, so the judge classes it a longer chain
and applies the precision check: refused, as the same code is as free-form code (docs/gates.md, "Certified
reorder"; tests/test_longer_chain.py).

    python benchmarks/redteam/s30/seqsum.py
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


class RowSum(torch.nn.Module):
    def forward(self, t):
        return (t * 2.0).sum(-1)


def main() -> None:
    backend = select_backend("auto")
    x = torch.randn(2, 4096, device=backend.device)
    session = EvaluationSession(problem_from_objects(RowSum(), (x,), "rowsum"), Settings(seeds=6, base_seed=11),
                                backend)
    ((graph, name),) = session.captured.triton_kernels
    (config,) = tuner.propose_configs(graph, name, 1)
    seq = dataclasses.replace(config, configs=({"XBLOCK": 2, "R0_BLOCK": 1, "num_warps": 1, "num_stages": 1},))
    for label, cand in (("launch config R0_BLOCK=1", seq),
                        ("the same code, free-form", dataclasses.replace(seq, source=seq.source + "\n# free-form\n",
                                                                         origin="test"))):
        res = session.evaluate(cand, perf=False)
        print(f"{label}: {res.decision} ({res.gate('correctness').numbers.get('provenance')}): {res.reason[:300]}")


if __name__ == "__main__":
    main()
