"""`kernelopt judge` on a problem file that cannot run (red team 11, finding 12): a one-line error, a JSON
answer with --json, exit 2 (nothing was judged), and no traceback, isolated or not."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from pytest_kernelopt import cli  # noqa: E402

PROBLEMS = {
    "raises.py": "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n\n"
                 "def get_inputs():\n    raise RuntimeError('boom')\n\ndef get_init_inputs():\n    return []\n",
    "syntax.py": "import torch\nclass Model(torch.nn.Module:\n",
}


@pytest.mark.parametrize("isolate", [True, False])
@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_a_problem_that_cannot_run_is_an_error_not_a_traceback(tmp_path, capsys, name, isolate):
    problem = tmp_path / name
    problem.write_text(PROBLEMS[name])
    cand = tmp_path / "k.py"
    cand.write_text("import triton\n")
    argv = ["judge", str(problem), str(cand), "--replaces", "triton_poi_fused_add_0", "--json"]
    rc = cli.main(argv + ([] if isolate else ["--no-isolate"]))
    out, err = capsys.readouterr()
    assert rc == 2
    answer = json.loads(out)
    assert answer["decision"] is None and "ProblemFormatError" in answer["error"]
    assert "nothing was judged" in err and "Traceback" not in err
