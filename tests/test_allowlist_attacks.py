"""Red-team regression tests for gate 1's allowlist and the isolation around it.

Each case under tests/adversarial/allowlist_attacks/cases/ is an untrusted candidate (a kernel source, launch
configurations, maybe a LaunchSpec) aimed at a shape the README's allowlist lets through or at the judge
around it.  Every case is judged by `python -m pytest_kernelopt.cli judge PROBLEM CANDIDATE --json --seeds 1`
in a subprocess with a timeout (cheap cases the allowlist rejects before compiling, "group": "static", share
one subprocess when the tests do not run under xdist).  Asserted for every case:

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
_BATCH: dict[str, dict] | None = None


def _static(path: pathlib.Path) -> bool:
    return runner.load(path).get("group") == "static"


def _result(path: pathlib.Path) -> dict:
    global _BATCH
    if _static(path) and not os.environ.get("PYTEST_XDIST_WORKER"):
        if _BATCH is None:
            _BATCH = runner.run_batch([p for p in CASES if _static(p)])
        return _BATCH[path.name]
    return runner.run_case(path)


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
def test_allowlist_attack(path: pathlib.Path):
    case = runner.load(path)
    r = _result(path)
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
