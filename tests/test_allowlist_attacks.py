"""Red-team regression tests for gate 1's allowlist and the isolation around it.

Each case under tests/adversarial/allowlist_attacks/cases/ is an untrusted candidate (a kernel source, launch
configurations, maybe a LaunchSpec) aimed at a shape the README's allowlist lets through or at the judge
around it.  Every case is judged as `python -m pytest_kernelopt.cli judge PROBLEM CANDIDATE --json --seeds 1`
runs it, with the case's time limit.  The cases run in chunks (tests/cli_batches.py): the selected cases are
split into chunks of CHUNK, and each chunk runs once per test session as ONE batch subprocess, whichever xdist
worker needs it first, the others reading its results; within the batch each case has its own output, its own
time limit and its own look at the marker directory right before and after it.  A case the batch did not report
on (it hung or took the batch down) is run alone in a subprocess of its own (runner.run_case).  Asserted for every case:

* no payload ran: no file appeared or changed under /tmp/kernelopt_redteam2/, no payload string was printed;
* the harness neither crashed nor hung: the judge finished, exit code 0 or 1, no traceback, a decision;
* "expect": "rejected" cases exit 1 with decision "rejected" ("harmless" cases may be verified).

Results and what each case showed: tests/adversarial/allowlist_attacks/RESULTS.md.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib

import pytest

_RUNNER_PATH = pathlib.Path(__file__).resolve().parent / "adversarial" / "allowlist_attacks" / "runner.py"
_spec = importlib.util.spec_from_file_location("kernelopt_allowlist_attack_runner", _RUNNER_PATH)
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)

CASES = runner.case_files()
#: cases per batch subprocess (~20 s on an idle machine): the batch's first case ~6 s (the judge's worker server
#: imports torch, Inductor and triton), each further one ~1 s (42_while_true_runtime ~9 s)
CHUNK = 16


@pytest.fixture(scope="session")
def attack_batches(request, cli_batch_dir):
    cli_batches = runner.cli_batches()
    selected = cli_batches.selected_params(request.session, __file__, "test_allowlist_attack", "path")
    return cli_batches.ChunkedBatches(cli_batch_dir, "allowlist-attacks", [p.name for p in selected], CHUNK,
                                      hooks=_RUNNER_PATH, function="batch_case",
                                      timeouts={p.name: runner.timeout_of(p) for p in selected}, env=runner._env(),
                                      cwd=runner.REPO)


def _result(path: pathlib.Path, batches) -> dict:
    r = batches.result(path.name)
    return r if r is not None else runner.run_case(path)  # not reported by its batch: alone


def _describe(case: dict, r: dict) -> str:
    keep = {k: r.get(k) for k in ("rc", "hung", "decision", "gate", "reason", "new_files", "payload_printed",
                                  "traceback", "seconds")}
    return (f"\ncase class: {case['class']}\nwhy: {case['why']}\nresult: {json.dumps(keep, indent=1)}"
            f"\nstderr tail:\n{r.get('stderr_tail', '')[-1500:]}\nstdout tail:\n{r.get('stdout_tail', '')[-800:]}")


def test_cases_are_well_formed():
    assert len(CASES) >= 30
    for path in CASES:
        case = runner.load(path)
        assert case["expect"] in ("rejected", "harmless"), path.name
        assert (runner.REPO / case["problem"]).is_file(), path.name
        assert case["candidate"]["replaces"] and isinstance(case["candidate"]["source"], str), path.name
        if case.get("marker"):
            assert case["marker"].startswith(str(runner.MARKER_DIR) + "/"), path.name


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_allowlist_attack(path: pathlib.Path, attack_batches):
    """One attack case, judged in its chunk's batch (the module docstring).

    CPU time: the first test to ask for a case of a chunk runs the whole chunk (~20 s idle, up to 16 judge
    runs), the chunk's other tests read its results."""
    case = runner.load(path)
    r = _result(path, attack_batches)
    if os.environ.get("KERNELOPT_RT2_RESULTS"):  # raw results for RESULTS.md
        with open(os.environ["KERNELOPT_RT2_RESULTS"], "a") as f:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    why = _describe(case, r)
    assert not r["new_files"] and not r["marker_appeared"], f"the payload ran (files {r['new_files']}){why}"
    assert not r["payload_printed"], f"the payload printed {r['payload_printed']}{why}"
    assert not r["hung"], f"the judge hung or was killed by the timeout{why}"
    assert r["rc"] in (0, 1), f"the judge exited with {r['rc']!r}{why}"
    assert not r["traceback"], f"the judge printed a traceback{why}"
    assert r["decision"] in ("verified", "accepted", "rejected"), f"no decision{why}"
    if case["expect"] == "rejected":
        assert r["rc"] == 1 and r["decision"] == "rejected", f"expected a rejection{why}"
