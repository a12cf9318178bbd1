"""The reference cost for the plugin's cached run: plain torch.compile plus one correctness check.

For each problem file given: build it, torch.compile it, call it once and compare with eager.  Prints
the wall time of the whole loop (this is what `pytest --kernelopt-problems` in verify mode is held to).
benchmarks/plain_compile_test.py runs the same check per problem inside pytest.
"""

import sys
import time
from pathlib import Path

t_start = time.perf_counter()
import torch  # noqa: E402

from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402


def compile_and_check(path: Path, device: str) -> None:
    problem = build_problem(ProblemSpec.from_file(path), device)
    compiled = torch.compile(problem.module)
    with torch.no_grad():
        out = compiled(*problem.example_inputs)
        ref = problem.module(*problem.example_inputs)
    torch.testing.assert_close(out, ref, rtol=1e-3, atol=1e-3)
    torch._dynamo.reset()


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    paths = [Path(p) for p in sys.argv[1:]]
    for path in paths:
        compile_and_check(path, device)
    if device == "cuda":
        torch.cuda.synchronize()
    print(f"plain compile + one check: {len(paths)} problems in {time.perf_counter() - t_start:.1f}s "
          "(process incl. imports)")
