"""Drawing a problem file's inputs: on the device when it can, on the CPU when get_inputs() needs it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

pytest_plugins = ["pytester"]

from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402

MODEL = """
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2


def get_init_inputs():
    return []
"""


def _problem(tmp_path, name: str, get_inputs: str):
    path = tmp_path / f"{name}.py"
    path.write_text(MODEL + textwrap.dedent(get_inputs))
    return ProblemSpec.from_file(path)


def test_inputs_are_made_on_the_device_not_copied_there(tmp_path):
    """A tensor made without a device argument is made on the target device ("meta" here)."""
    spec = _problem(tmp_path, "plain_inputs", """
        made_on = []

        def get_inputs():
            x = torch.randn(4, 8)
            made_on.append(x.device.type)
            return [x]
    """)
    problem = build_problem(spec, "meta")
    from pytest_kernelopt.problems import load_problem_module

    assert problem.example_inputs[0].device.type == "meta"
    assert load_problem_module(spec.ref).made_on == ["meta"], "drawn on the device, not on the CPU and copied"


def test_a_get_inputs_that_needs_cpu_tensors_falls_back_to_the_cpu_for_good(tmp_path):
    spec = _problem(tmp_path, "numpy_inputs", """
        calls = []

        def get_inputs():
            calls.append(1)
            x = torch.randn(4, 8)
            return [torch.from_numpy(x.numpy() * 2)]  # .numpy() fails on a device tensor
    """)
    on_cpu = build_problem(spec, "cpu").draw_inputs(3)[0]
    problem = build_problem(spec, "meta")
    assert problem.example_inputs[0].device.type == "meta"
    from pytest_kernelopt.problems import load_problem_module

    mod = load_problem_module(spec.ref)
    before = len(mod.calls)
    again = problem.draw_inputs(3)[0]
    assert len(mod.calls) == before + 1, "after the first failure, inputs are drawn on the CPU directly"
    assert again.device.type == "meta" and again.shape == on_cpu.shape
    # the fallback re-seeds before drawing: the CPU draw of a seed is the same whichever device it goes to
    assert torch.equal(build_problem(spec, "cpu").draw_inputs(3)[0], on_cpu)


def test_cache_records_problem_files_relative_to_the_rootdir(tmp_path):
    from pytest_kernelopt.workflow import problem_id_for

    (tmp_path / "probs").mkdir()
    inside = tmp_path / "probs" / "p.py"
    assert problem_id_for(inside, tmp_path) == "probs/p.py"
    assert problem_id_for(tmp_path / "probs" / ".." / "probs" / "p.py", tmp_path) == "probs/p.py"
    outside = tmp_path.parent / "elsewhere.py"
    assert problem_id_for(outside, tmp_path / "probs") == str(outside)


@pytest.mark.parametrize("returns, got", [("{'x': torch.randn(4, 8)}", "dict"), ("None", "NoneType"),
                                          ("'x'", "str")])
def test_get_inputs_must_return_a_list_or_tuple(tmp_path, returns, got):
    """A dict's keys reached forward and the error blamed the Model."""
    from pytest_kernelopt.errors import ProblemFormatError

    spec = _problem(tmp_path, f"returns_{got.lower()}", f"""
        def get_inputs():
            return {returns}
    """)
    with pytest.raises(ProblemFormatError, match=rf"get_inputs\(\) must be a list \(or tuple\) of the positional "
                                                 rf"arguments, or a single tensor \(the one argument\), got {got}"):
        build_problem(spec, "cpu")


def test_inputs_are_a_list_or_tuple_or_one_tensor_for_the_fixture_and_problem_files(tmp_path, pytester):
    """The fixture took a bare tensor as the one input while a problem file's get_inputs() returning one was a
    format error: one rule for both (problems.ARGUMENTS_RULE), a lone tensor being the one argument and a dict an
    error in the fixture too (it was passed to forward as one argument)."""
    spec = _problem(tmp_path, "returns_tensor", """
        def get_inputs():
            return torch.randn(4, 8)
    """)
    (x,) = build_problem(spec, "cpu").example_inputs
    assert x.shape == (4, 8)
    pytester.makepyfile(test_dict=textwrap.dedent("""
        import torch

        def test_dict(kernelopt):
            kernelopt(torch.nn.Identity(), {"x": torch.randn(4, 8)})
    """))
    # in this process: torch is loaded already; hypothesis' summary would import hypothesis afresh (1-2 s)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:benchmark", "-p", "no:hypothesispytest")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*InputError: test_dict.py::test_dict: kernelopt(module, inputs): inputs must be a "
                                 "list (or tuple) of the positional arguments, or a single tensor (the one "
                                 "argument), got dict"])


def test_a_generator_of_inputs_is_the_list_it_yields(tmp_path):
    spec = _problem(tmp_path, "gen_inputs", """
        def get_inputs():
            yield torch.randn(4, 8)
    """)
    problem = build_problem(spec, "cpu")
    assert len(problem.example_inputs) == 1 and problem.example_inputs[0].shape == (4, 8)


@pytest.mark.parametrize("where, body", [
    ("get_inputs", """
        def get_inputs():
            import sys
            sys.exit(0)
    """),
    ("import", """
        raise SystemExit(3)

        def get_inputs():
            return [torch.randn(4, 8)]
    """)])
def test_a_problem_file_that_exits_is_its_error_and_the_bench_goes_on(tmp_path, where, body):
    """Red team 17: sys.exit(0) in get_inputs() ended `kernelopt bench` with exit 0, no report, and the later
    problems never ran."""
    from pytest_kernelopt.errors import ProblemFormatError

    spec = _problem(tmp_path, f"exits_in_{where}", body)
    with pytest.raises(ProblemFormatError, match="SystemExit"):
        build_problem(spec, "cpu")
    good = _problem(tmp_path, "fine", """
        def get_inputs():
            return [torch.randn(4, 8)]
    """)
    report = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", "bench", spec.ref, good.ref, "--proposer",
                           "none", "--report", str(report)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 of 2 problem(s) failed" in proc.stdout + proc.stderr
    doc = json.loads(report.read_text())
    assert [f["problem"] for f in doc["failed"]] == [spec.ref] and "SystemExit" in doc["failed"][0]["error"]
    assert [p["name"] for p in doc["problems"]] == ["fine"], doc["problems"]
