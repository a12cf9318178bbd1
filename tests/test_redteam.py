"""Red-team regression tests: cheating and malicious candidates must never be verified, run code, or break the judge.

Each case is a data file under ``tests/adversarial/redteam/cases/`` (written by ``build_cases.py`` there, which
documents every field).  A case is driven through its route by the public surface only:

* ``judge``: ``kernelopt judge PROBLEM CANDIDATE.json --json``, run as ``python -m pytest_kernelopt.cli`` runs it
  (same argv, working directory and time limit); it must exit 1 with the decision ``rejected``.  These cases run
  in chunks (``tests/cli_batches.py``): the selected judge cases are split into chunks, and each chunk runs once
  per test session as ONE batch subprocess, whichever xdist worker needs it first, the others reading its
  results.  Within the batch the case's marker is cleared right before its judge runs and looked at right after
  it, and its output is its own.  A case the batch did not report on (it hung or took the batch down) is run
  alone in a subprocess of its own, as before.
* ``cache``: the candidate is written into a temporary cache directory as an accepted entry (current environment
  unless the case says otherwise; forged cascade and speedup, as a malicious commit would write it).  A verify run
  ``pytest --kernelopt-problems PROBLEM --kernelopt-cache-dir DIR`` must not serve it (its kernel's decision must
  not be ``cached``), and then ``kernelopt cache verify`` (the CI job) must exit non-zero.  Only writing the
  entry uses the library (the cache key's normalized baseline hash has no public command).
* ``llm``: a scripted OpenAI-compatible server on loopback (``tests/llm_server.py``) answers the analyst and the
  planner, then the writer's ``submit_kernel`` with the candidate; ``kernelopt bench PROBLEM --proposer agents``
  runs in a subprocess and no candidate it judged may be ``verified`` / ``accepted``.

For every route: the payload's marker (``/tmp/kernelopt_redteam/...``) must not appear, its ``payload_string``
must not be printed, and the harness must neither crash nor hang (subprocess time limit).

Set ``KOPT_REDTEAM_LOG=path.jsonl`` to append one JSON line per case (what ``RESULTS.md`` is built from).
Run: ``python -m pytest tests/test_redteam.py`` (one process, or several with ``-n``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cli_batches
import pytest

ROOT = Path(__file__).resolve().parent.parent
REDTEAM = ROOT / "tests" / "adversarial" / "redteam"
CASE_FILES = sorted((REDTEAM / "cases").glob("*.json"))
MARK_ROOT = Path("/tmp/kernelopt_redteam")
PASSING = ("verified", "accepted")
#: judge cases per batch subprocess, by group, for ~20-40 s a batch on an idle machine: its first case ~6 s (the
#: judge's worker server imports torch, Inductor and triton), each further one ~1 s; a case that gives the judge a
#: --timeout (10 s, the smallest that still lets a worker judge an honest candidate on a loaded machine) may run into
#: it on purpose (60_static_range_unroll: ~11 s with the worker's restart, 65_huge_grid_launch ~10 s), the others
#: of that group ~1 s: its 7 cases in one batch (~35 s idle) pay the batch's start once instead of four times
JUDGE_CHUNK = {"judge": 14, "judge-timeout": 8}


# --------------------------------------------------------------------------- helpers

def load_case(path: Path) -> dict[str, Any]:
    case = json.loads(path.read_text())
    cand = case["candidate"]
    exp = case.get("expand")
    if exp:
        cand["source"] = cand["source"].replace(exp["placeholder"], exp["text"] * int(exp["count"]))
    if case.get("configs_product"):
        names, values = zip(*case["configs_product"].items())
        cand["configs"] = [dict(zip(names, combo)) for combo in itertools.product(*values)]
    assert case["route"] in ("judge", "cache", "llm"), case["route"]
    assert case.get("expect", "rejected") == "rejected"
    return case


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


class Hung(Exception):
    pass


def _run(argv: list[str], *, cwd: Path, timeout: float, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``argv`` in its own process group; on timeout kill that group (the worker included) and raise Hung."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env or _env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        raise Hung(f"{' '.join(argv[:4])} ... still running after {timeout:.0f}s\n{(out or '')[-2000:]}\n"
                   f"{(err or '')[-2000:]}")
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _cli(*args: str, cwd: Path, timeout: float, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-m", "pytest_kernelopt.cli", *args], cwd=cwd, timeout=timeout, env=env)


def _last_json(text: str) -> dict[str, Any] | None:
    """The last top-level JSON object in ``text`` (a payload may print before it)."""
    lines = text.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i] == "{":
            try:
                return json.loads("\n".join(lines[i:]))
            except ValueError:
                continue
    return None


def _first_failed_gate(result: dict[str, Any]) -> str:
    for g in result.get("gates", []):
        if g.get("status") not in ("pass", "not_measured", "skipped"):
            return f"{g.get('gate')}: {str(g.get('reason', ''))[:300]}"
    return ""


def _clear_marker(case: dict[str, Any]) -> Path | None:
    MARK_ROOT.mkdir(parents=True, exist_ok=True)  # payloads that mkdir a child need the parent
    if not case.get("marker"):
        return None
    marker = Path(case["marker"])
    assert marker.parent == MARK_ROOT, "markers live directly under /tmp/kernelopt_redteam"
    if marker.is_dir() and not marker.is_symlink():
        shutil.rmtree(marker)
    elif marker.exists() or marker.is_symlink():
        marker.unlink()
    return marker


def _problem_copy(problem: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(problem, dest / problem.name)
    for sibling in problem.parent.glob("_*.py"):  # helpers a problem imports (examples/problems/_scale.py)
        shutil.copy(sibling, dest / sibling.name)
    return dest / problem.name


# --------------------------------------------------------------------------- routes

def _judge_argv(case: dict[str, Any], cand_file: Path) -> list[str]:
    return ["judge", str(ROOT / case["problem"]), str(cand_file), "--json", *case.get("judge_args", [])]


def _judge_timeout(case: dict[str, Any]) -> float:
    return case.get("timeout", 240)


def drive_judge(case: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    cand_file = tmp_path / "candidate.json"
    cand_file.write_text(json.dumps(case["candidate"]))
    proc = _cli(*_judge_argv(case, cand_file), cwd=ROOT, timeout=_judge_timeout(case))
    return _judged(proc.returncode, proc.stdout, proc.stderr)


def _judged(returncode: int, stdout: str, stderr: str) -> dict[str, Any]:
    """What a judge run that ended says: crashed, or its decision and whether it got through."""
    result = _last_json(stdout)
    out = stdout + stderr
    if result is None or returncode not in (0, 1):
        return {"crashed": f"judge exited {returncode} without a result:\n{out[-3000:]}", "output": out}
    decision = result.get("decision")
    return {"accepted": decision in PASSING or returncode == 0, "decision": decision,
            "reason": _first_failed_gate(result) or f"decision {decision}", "output": out}


def batch_judge_case(child: Any, stem: str) -> dict[str, Any]:
    """Inside a batch subprocess (tests/cli_batches.py): the judge route of one case, its marker cleared right
    before its judge runs and looked at right after."""
    case = load_case(REDTEAM / "cases" / f"{stem}.json")
    with tempfile.TemporaryDirectory(prefix="kopt-redteam-") as tmp:
        cand_file = Path(tmp) / "candidate.json"
        cand_file.write_text(json.dumps(case["candidate"]))
        marker = _clear_marker(case)
        r = child.run_cli(_judge_argv(case, cand_file), cwd=ROOT)
        r["marker_ran"] = bool(marker and (marker.exists() or marker.is_symlink()))
    return r


def _judge_group(case: dict[str, Any]) -> str:
    return "judge-timeout" if "--timeout" in case.get("judge_args", []) else "judge"


@pytest.fixture(scope="session")
def judge_batches(request: pytest.FixtureRequest, cli_batch_dir: Path) -> dict[str, cli_batches.ChunkedBatches]:
    files = cli_batches.selected_params(request.session, __file__, "test_redteam_case", "case_file")
    cases = {p.stem: load_case(p) for p in files}
    judged = {stem: c for stem, c in cases.items() if c["route"] == "judge"}
    return {group: cli_batches.ChunkedBatches(
        cli_batch_dir, f"redteam-{group}", [s for s, c in judged.items() if _judge_group(c) == group], size,
        hooks=Path(__file__), function="batch_judge_case", timeouts={s: _judge_timeout(c) for s, c in judged.items()},
        env=_env(), cwd=ROOT) for group, size in JUDGE_CHUNK.items()}


def _store_entry(case: dict[str, Any], problem_file: Path, cache_dir: Path) -> str:
    """Write the candidate as an accepted entry for this environment, the way a malicious commit would."""
    from pytest_kernelopt.backends import select_backend
    from pytest_kernelopt.cache import KernelCache
    from pytest_kernelopt.cache_keys import current_environment
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.gates.results import CascadeResult, GateResult
    from pytest_kernelopt.problems import ProblemSpec, build_problem, input_signature
    from pytest_kernelopt.workflow import cache_key, device_key

    backend = select_backend("auto")
    problem = build_problem(ProblemSpec.from_file(problem_file), backend.device)
    cap = capture(problem.module, problem.example_inputs, backend=backend)
    (name,) = case["candidate"]["replaces"]
    g = next(g for g in cap.graphs if name in g.kernels)
    cand = Candidate.from_json({**case["candidate"], "origin": "agents"})
    perf = GateResult("performance", "pass", "recorded", {"speedup": 1.3, "ci_low": 1.2, "ci_high": 1.4,
                                                           "measured": True})
    res = CascadeResult(cand.replaces, cand.content_hash, (GateResult("static", "pass"), perf), "accepted")
    key = cache_key(g, cand.replaces, input_signature(problem.example_inputs), device_key(backend))
    env = dataclasses.replace(current_environment(), **case.get("cache_environment", {}))
    KernelCache(cache_dir).store_accepted(key, cand, [g.kernels[name]], res, problem_id=str(problem_file),
                                          environment=env)
    return name


def drive_cache(case: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    problem_file = _problem_copy(ROOT / case["problem"], tmp_path / "problem")
    cache_dir = tmp_path / "kc"
    name = _store_entry(case, problem_file, cache_dir)
    _clear_marker(case)  # the entry was written in this process: only what the commands do counts

    # the verify run first (what every `pytest` does with a committed cache), then the CI command
    report = tmp_path / "report.json"
    run = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--kernelopt-problems",
                str(problem_file), "--kernelopt-cache-dir", str(cache_dir), f"--kernelopt-report={report}"],
               cwd=problem_file.parent, timeout=case.get("timeout", 300))
    verify = _cli("cache", "--cache-dir", str(cache_dir), "verify", "--problems", str(problem_file), cwd=tmp_path,
                  timeout=case.get("timeout", 240))  # the entry judged on its problem, found by its key
    out = verify.stdout + verify.stderr + run.stdout + run.stderr
    if run.returncode not in (0, 1) or not report.exists() or verify.returncode not in (0, 1):
        return {"crashed": f"cache verify exited {verify.returncode}, pytest exited {run.returncode}:\n{out[-3000:]}",
                "output": out}
    (test,) = json.loads(report.read_text())["tests"]
    kernel = next((k for k in test["kernels"] if name in k["kernel"].split("+")), None)
    decision = kernel["decision"] if kernel else "not listed"
    if name in test.get("uncached", []):
        raise AssertionError(f"setup: the forged entry did not match the captured kernel {name}\n{out[-2000:]}")
    served = decision in ("cached", *PASSING)
    verify_ok = verify.returncode == 0
    reason = (f"pytest: {decision}" + (f" ({str(kernel.get('note', ''))[:200]})" if kernel and kernel.get("note") else "")
              + f"; cache verify rc={verify.returncode}: " + " | ".join(verify.stdout.strip().splitlines()[-2:])[:300])
    return {"accepted": served or verify_ok, "served": served, "verify_ok": verify_ok, "decision": decision,
            "reason": reason, "output": out}


def drive_llm(case: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    from llm_server import ScriptedLLMServer, reply, tool_call

    cand = case["candidate"]
    args = {"source": cand["source"], "description": "red-team answer"}
    if cand.get("configs"):
        args["configs"] = cand["configs"]
    if cand.get("launch"):
        args["launch"] = cand["launch"]
    report = tmp_path / "report.json"
    with ScriptedLLMServer([reply("Memory-bound pointwise kernel."), reply("Rewrite the kernel."),
                            tool_call("submit_kernel", args)], lifetime=600) as server:
        env = _env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="test", KERNELOPT_MODEL="scripted-model",
                   NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        env.pop("OPENAI_MODEL", None)
        proc = _cli("bench", str(ROOT / case["problem"]), "--proposer", "agents", "--no-cache", "--budget", "120",
                    "--report", str(report), cwd=tmp_path, timeout=case.get("timeout", 300), env=env)
        asked = len(server.requests)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0 or not report.exists() or "ERROR:" in proc.stdout:
        return {"crashed": f"bench exited {proc.returncode}:\n{out[-3000:]}", "output": out}
    assert asked >= 3, f"setup: the agents asked the scripted model only {asked} time(s)\n{out[-2000:]}"
    kernels = [k for p in json.loads(report.read_text())["problems"] for k in p["kernels"]]
    tried = [t for k in kernels for t in (k.get("tried") or [])]
    judged = [t.get("decision") for t in tried]
    accepted = any(k.get("decision") == "accepted" for k in kernels) or any(d in PASSING for d in judged)
    reasons = [_first_failed_gate(t) for t in tried if t.get("decision") not in PASSING]
    reason = "; ".join(r for r in reasons if r) or "; ".join(str(k.get("note", ""))[:200] for k in kernels)
    return {"accepted": accepted, "decision": ",".join(map(str, judged)) or "not judged", "reason": reason,
            "output": out}


DRIVERS = {"judge": drive_judge, "cache": drive_cache, "llm": drive_llm}


def _log(record: dict[str, Any]) -> None:
    path = os.environ.get("KOPT_REDTEAM_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")


# --------------------------------------------------------------------------- the test

def test_the_cases_are_many_and_cover_every_route():
    cases = [load_case(p) for p in CASE_FILES]
    assert len(cases) >= 30
    routes = [c["route"] for c in cases]
    assert routes.count("cache") >= 3 and routes.count("llm") >= 3
    for c in cases:
        assert (ROOT / c["problem"]).is_file(), c["problem"]
        assert c["why"] and c["class"]


@pytest.mark.parametrize("case_file", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_redteam_case(case_file: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture,
                      judge_batches: dict[str, cli_batches.ChunkedBatches]):
    """One case through its route (the module docstring).

    CPU time: the first test to ask for a judge case of a chunk runs the whole chunk (~20-40 s idle, up to 14
    judge runs), the chunk's other tests read its results; a cache or llm case runs its commands (~30-60 s)."""
    caplog.set_level(logging.WARNING)  # the in-process capture of cache cases logs torch's traces at DEBUG
    case = load_case(case_file)
    record: dict[str, Any] = {"case": case_file.stem, "class": case["class"], "route": case["route"]}
    batched = judge_batches[_judge_group(case)].result(case_file.stem) if case["route"] == "judge" else None
    if batched is not None:  # its marker was cleared and looked at by the batch, around this case's judge
        marker = Path(case["marker"]) if case.get("marker") else None
        res = _judged(batched["rc"], batched["stdout"], batched["stderr"])
        seconds, ran = batched["seconds"], batched["marker_ran"]
    else:  # another route, or a judge case its batch did not report on: alone, here
        marker = _clear_marker(case)
        t0 = time.monotonic()
        try:
            res = DRIVERS[case["route"]](case, tmp_path)
        except Hung as e:
            res = {"hung": str(e), "output": ""}
        seconds = time.monotonic() - t0
        ran = bool(marker and (marker.exists() or marker.is_symlink()))
    output = res.get("output", "")
    printed = bool(case.get("payload_string") and case["payload_string"] in output)
    problems = []
    if res.get("hung"):
        problems.append(f"the harness hung: {res['hung'][:1500]}")
    if res.get("crashed"):
        problems.append(f"the harness crashed: {res['crashed'][:1500]}")
    if res.get("accepted"):
        problems.append(f"got through: decision {res.get('decision')} ({res.get('reason', '')})")
    if ran:
        problems.append(f"the payload ran: {marker} was created")
    if printed:
        problems.append(f"the payload ran: {case['payload_string']!r} was printed")
    record.update({"rejected": not res.get("accepted") and not res.get("hung") and not res.get("crashed"),
                   "decision": res.get("decision"), "payload_ran": ran or printed, "hung": bool(res.get("hung")),
                   "crashed": bool(res.get("crashed")), "reason": res.get("reason", ""),
                   "served": res.get("served"), "verify_ok": res.get("verify_ok"), "seconds": round(seconds, 1)})
    _log(record)
    if problems:
        pytest.fail(f"{case_file.stem} [{case['class']}, via {case['route']}]: " + "; ".join(problems)
                    + f"\nwhy it must be rejected: {case['why']}", pytrace=False)
