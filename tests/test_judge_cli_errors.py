"""The ``kernelopt`` command's errors: a problem file that cannot run (red team 11, finding 12) is a one-line error,
a JSON answer with --json, exit 2 (nothing was judged), and no traceback, isolated or not; a user's mistake in
the command (a missing or malformed file, a kernel name the problem lacks, a bad value) is a usage error with
the subcommand's usage, exit 2, never exit 1, which for ``judge`` means "rejected" (new-user review)."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")

from pytest_kernelopt import cli  # noqa: E402

PROBLEMS = {
    "raises.py": "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n\n"
                 "def get_inputs():\n    raise RuntimeError('boom')\n\ndef get_init_inputs():\n    return []\n",
    "syntax.py": "import torch\nclass Model(torch.nn.Module:\n",
}
GOOD = ("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x * 2 + 1\n\n"
        "def get_inputs():\n    return [torch.randn(64)]\n\ndef get_init_inputs():\n    return []\n")


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


def usage_error(capsys, argv: list[str]) -> tuple[str, str]:
    """Run ``kernelopt argv``, which must stop with a usage error (exit 2): its stdout and stderr."""
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return out, err


@pytest.mark.parametrize("candidate, extra, message", [
    (None, ["--replaces", "k"], "no such candidate file: "),
    ("{not json", [], " is not a candidate in JSON (an object with replaces, source, configs, launch): "
                      "JSONDecodeError"),
    ('["a list"]', [], " is not a candidate in JSON"),
    ("import triton\n", [], "--replaces KERNEL is required for a kernel source file"),
    ("import triton\n", ["--replaces", "k", "--configs", "{oops"], "bad --configs/--launch"),
    ("[" * 100_000 + "]" * 100_000, [], " nests too deeply to be read as JSON"),  # red team 26: a traceback
    # a field of the wrong type ended in a traceback and exit 1 ("rejected"): the field is named, exit 2
    ('{"replaces": ["k"], "source": 5}', [], "'source' must be a string"),
    ('{"replaces": "k", "source": "import triton"}', [], "'replaces' must be a list of kernel names"),
    ('{"replaces": ["k"], "source": "import triton", "configs": [1]}', [], "'configs' must be a list of objects"),
    ('{"replaces": ["k"], "source": "import triton", "origin": []}', [], "'origin' must be a string"),
    ("import triton\n", ["--replaces", "k", "--configs", "[" * 100_000 + "]" * 100_000], "bad --configs/--launch"),
])
def test_a_mistake_in_the_judge_command_is_a_usage_error_not_a_rejection(tmp_path, capsys, candidate, extra,
                                                                        message):
    """Exit 1 means "rejected": a missing file, a file that is no candidate, or --replaces left out were exit 1
    too, so a script could not tell a typo from a verdict."""
    problem = tmp_path / "p.py"
    problem.write_text(GOOD)
    cand = tmp_path / ("c.json" if candidate and candidate[0] in "{[" else "c.py")
    if candidate is not None:
        cand.write_text(candidate)
    out, err = usage_error(capsys, ["judge", str(problem), str(cand), *extra])
    assert err.startswith("usage: kernelopt judge ") and "kernelopt judge: error: " in err and message in err, err
    assert "decision" not in out
    out, err = usage_error(capsys, ["judge", str(problem), str(cand), *extra, "--json"])
    answer = json.loads(out)  # --json answers on stdout even so, with no decision
    assert answer["decision"] is None and message in answer["error"]


def test_a_replaces_typo_is_a_usage_error_listing_the_problems_kernels(tmp_path, capsys):
    """`--replaces nosuchkernel` printed "static fail replaces unknown kernel" and "decision: rejected" (exit 1):
    the user's typo read as the candidate's failure, and the names that do exist were not shown."""
    problem = tmp_path / "p.py"
    problem.write_text(GOOD)
    cand = tmp_path / "k.py"
    cand.write_text("import triton\n")
    out, err = usage_error(capsys, ["judge", str(problem), str(cand), "--replaces", "nosuchkernel", "--no-isolate"])
    assert "usage: kernelopt judge " in err and "decision" not in out
    found = re.search(r"kernelopt judge: error: --replaces nosuchkernel: no such Triton kernel in the captured "
                      r"graph\(s\) of this problem; its kernels are: (triton_\w+) ", err)
    assert found, err
    # the name it lists is the one capture finds, and it passes the same check
    from pytest_kernelopt.backends import select_backend
    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.problems import ProblemSpec, build_problem

    built = build_problem(ProblemSpec.from_file(problem), "cpu")
    graphs = capture(built.module, built.example_inputs, backend=select_backend("cpu")).graphs
    assert [n for g in graphs for n in g.kernels] == [found.group(1)]
    assert cli.unknown_replaced([found.group(1)], graphs) == ""


def test_a_json_candidates_own_unknown_kernel_is_judged_and_rejected(tmp_path, capsys):
    """The choice made for a candidate whose content names a kernel the problem lacks: that is the candidate's
    fault (an agent's answer for another problem, say), judged like the rest of it: rejected, exit 1."""
    problem = tmp_path / "p.py"
    problem.write_text(GOOD)
    cand = tmp_path / "c.json"
    cand.write_text(json.dumps({"replaces": ["nosuchkernel"], "source": "import triton\n"}))
    rc = cli.main(["judge", str(problem), str(cand), "--json", "--no-isolate"])
    out, _ = capsys.readouterr()
    assert rc == 1
    result = json.loads(out)
    assert result["decision"] == "rejected" and "unknown kernel" in json.dumps(result["gates"])


def test_unknown_replaced_takes_plain_and_graph_qualified_names():
    graphs = [SimpleNamespace(kernels={"k_a": 0, "k_b": 0}), SimpleNamespace(kernels={"k_c": 0})]
    assert cli.unknown_replaced(["k_a", "g1:k_c"], graphs) == ""
    assert cli.unknown_replaced(None, graphs) == ""  # a JSON candidate without --replaces: nothing to check here
    message = cli.unknown_replaced(["k_a", "g0:k_c", "k_z"], graphs)
    assert message.startswith("--replaces g0:k_c k_z: no such Triton kernel")
    assert "its kernels are: g0:k_a, g0:k_b, g1:k_c " in message
    assert "its kernels are: none " in cli.unknown_replaced(["k_a"], [])


@pytest.mark.parametrize("argv, command, message", [
    (["bench", "x.py", "--seeds", "0"], "bench", "--seeds: '0' is not allowed; expected an integer >= 1"),
    (["capture", "x.py", "--backend", "gpu"], "capture", "--backend: 'gpu' is not allowed"),
    (["judge", "p.py", "c.py", "--min-speedup", "0"], "judge", "--min-speedup: '0' is not allowed"),
])
def test_a_bad_setting_shows_the_subcommands_usage(capsys, argv, command, message):
    """It showed the top-level usage (`usage: kernelopt [-h] [--version] {capture,...}`), which lists no flag."""
    _, err = usage_error(capsys, argv)
    assert err.startswith(f"usage: kernelopt {command} ") and f"kernelopt {command}: error: {message}" in err, err
    assert "{capture," not in err


@pytest.mark.parametrize("command", ["bench", "capture"])
def test_a_missing_problem_path_is_a_usage_error(tmp_path, capsys, command):
    (tmp_path / "empty").mkdir()
    _, err = usage_error(capsys, [command, str(tmp_path / "nope.py"), "--backend", "cpu"])
    assert f"kernelopt {command}: error: no such file or directory: {tmp_path / 'nope.py'}" in err
    _, err = usage_error(capsys, [command, str(tmp_path / "empty"), "--backend", "cpu"])
    assert f"no problem files (*.py) under {tmp_path / 'empty'}" in err


def test_a_file_as_the_cache_dir_is_a_usage_error(tmp_path, capsys):
    """`--cache-dir /tmp/afile` was taken silently: every lookup a miss, every write failing."""
    afile = tmp_path / "afile"
    afile.write_text("not a cache\n")
    problem = tmp_path / "p.py"
    problem.write_text(GOOD)
    _, err = usage_error(capsys, ["bench", str(problem), "--cache-dir", str(afile)])
    assert "usage: kernelopt bench " in err
    assert f"kernelopt bench: error: the cache directory {afile} exists but is not a directory" in err
    assert afile.read_text() == "not a cache\n"


def test_help_says_what_the_command_does_with_cache_dir_and_documents_exit_2(capsys):
    with pytest.raises(SystemExit):
        cli.main(["bench", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--cache-dir CACHE_DIR directory of the versioned kernel cache (a relative path is taken from the " \
           "current directory)" in text and "rootdir" not in text
    assert "--no-cache neither read nor write the kernel cache" in text
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 success; 1 a verdict or a finding (judge: rejected;" in text and "2 a usage error" in text
    with pytest.raises(SystemExit):
        cli.main(["judge", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 verified or accepted; 1 rejected; 2 nothing was judged" in text


def test_a_correctness_pass_that_only_hands_on_the_verdict_is_shown_as_such(tmp_path, capsys):
    """New-user review: "correctness pass  differs from the baseline beyond tolerance" read as a contradiction;
    beyond tolerance the correctness gate only passes the verdict on to the float64 gate, and says so."""
    from pytest_kernelopt.backends import select_backend
    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.problems import ProblemSpec, build_problem

    problem = tmp_path / "p.py"
    problem.write_text(GOOD)
    built = build_problem(ProblemSpec.from_file(problem), "cpu")
    (graph,) = capture(built.module, built.example_inputs, backend=select_backend("cpu")).graphs
    ((name, kernel),) = graph.kernels.items()
    store = re.search(r"tl\.store\((out_ptr0 \+ \(\w+\)), (tmp\d+), (\w+)\)", kernel.source)
    assert store, kernel.source
    cand = tmp_path / "k.py"
    cand.write_text(kernel.source.replace(store.group(0),
                                          f"tl.store({store.group(1)}, {store.group(2)} * 1.01, {store.group(3)})"))
    rc = cli.main(["judge", str(problem), str(cand), "--replaces", name, "--no-isolate", "--seeds", "2"])
    out, _ = capsys.readouterr()
    assert rc == 1 and "decision: rejected" in out
    assert re.search(r"^correctness +to fp64 +differs from the baseline beyond tolerance", out, re.M), out
    assert re.search(r"^fp64 +fail ", out, re.M), out
