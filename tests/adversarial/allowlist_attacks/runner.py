"""Drives attack cases through `kernelopt judge` and records what happened.

* run_case(path): `python -m pytest_kernelopt.cli judge PROBLEM CANDIDATE.json --json --seeds 1 ...` in a
  subprocess of its own, with a timeout.
* run_batch(paths): the cases judged one after another in ONE subprocess (tests/cli_batches.py), each exactly as
  `python -m pytest_kernelopt.cli judge ...` would run it (runpy, same argv, its own output and time limit), saving
  a Python/torch start-up each; batch_case is what that subprocess runs per case.  A case the batch did not report
  on (it hung or took the batch down) is missing from the result: run it with run_case.

Both report, per case: exit code, decision, the first gate that did not pass and its reason, files that
appeared under /tmp/kernelopt_redteam2/ during the case, payload strings seen on its stdout/stderr, tracebacks,
hangs.

`python runner.py [CASE.json ...]` runs cases (all by default) the way the test does and writes the results
to $RT2_RESULTS (default /tmp/kernelopt_rt2_results.json).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
CASES = HERE / "cases"
MARKER_DIR = pathlib.Path("/tmp/kernelopt_redteam2")
DEFAULT_TIMEOUT = 180          # seconds for one judge subprocess
DEFAULT_WORKER_TIMEOUT = "60"  # the judge's own --timeout (one candidate evaluation in a worker)


def case_files() -> list[pathlib.Path]:
    return sorted(CASES.glob("*.json"))


def load(path: pathlib.Path) -> dict:
    return json.loads(path.read_text())


def _snapshot() -> dict[str, int]:
    """Names and modification times under the marker directory (a payload that re-touches an old marker shows)."""
    MARKER_DIR.mkdir(parents=True, exist_ok=True)
    snap = {}
    for p in MARKER_DIR.iterdir():
        try:
            snap[p.name] = p.stat().st_mtime_ns
        except OSError:
            pass
    return snap


def _changed(before: dict[str, int], after: dict[str, int]) -> list[str]:
    return sorted(n for n, t in after.items() if before.get(n) != t)


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def judge_argv(case: dict, cand_path: str) -> list[str]:
    args = list(case.get("judge_args", []))
    if "--timeout" not in args:
        args += ["--timeout", DEFAULT_WORKER_TIMEOUT]
    return ["judge", case["problem"], cand_path, "--json", "--seeds", "1", *args]


def _parse(out: str):
    for start in [0, *[i for i, ch in enumerate(out) if ch == "{" and (i == 0 or out[i - 1] == "\n")]]:
        try:
            return json.loads(out[start:])
        except ValueError:
            continue
    return None


def summarize(path: pathlib.Path, case: dict, rc, hung: bool, out: str, err: str, elapsed: float,
              new_files: list[str]) -> dict:
    result = _parse(out)
    gates = (result or {}).get("gates", [])
    first_fail = next((g for g in gates if g.get("status") not in ("pass", "not_measured")), None)
    marker = case.get("marker")
    return {
        "case": path.name, "expect": case["expect"], "class": case["class"], "group": case.get("group"),
        "rc": rc, "hung": hung, "seconds": round(elapsed, 1), "decision": (result or {}).get("decision"),
        "gate": first_fail["gate"] if first_fail else None,
        "reason": first_fail["reason"] if first_fail else None,
        "gates": [(g.get("gate"), g.get("status"), g.get("reason")) for g in gates],
        "new_files": new_files,
        "marker_appeared": bool(marker) and os.path.basename(marker) in new_files,
        "payload_printed": [s for s in case.get("payload_strings", []) if s in out or s in err],
        "traceback": "Traceback (most recent call last)" in err or "Traceback (most recent call last)" in out,
        "stdout_tail": out[-1500:] if result is None else "", "stderr_tail": err[-3000:],
    }


def run_case(path: pathlib.Path) -> dict:
    """One case, one `python -m pytest_kernelopt.cli judge` subprocess."""
    case = load(path)
    before = _snapshot()
    with tempfile.TemporaryDirectory(prefix="kernelopt_rt2_") as tmp:
        cand = pathlib.Path(tmp) / "candidate.json"
        cand.write_text(json.dumps(case["candidate"]))
        cmd = [sys.executable, "-m", "pytest_kernelopt.cli", *judge_argv(case, str(cand))]
        t0 = time.monotonic()
        hung = False
        try:
            proc = subprocess.run(cmd, cwd=REPO, env=_env(), capture_output=True, text=True,
                                  timeout=case.get("timeout", DEFAULT_TIMEOUT))
            rc, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as e:
            hung, rc = True, None
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        elapsed = time.monotonic() - t0
    return summarize(path, case, rc, hung, out, err, elapsed, _changed(before, _snapshot()))


def cli_batches():
    """tests/cli_batches.py (this file also runs outside pytest, as a script and as the batch's hooks)."""
    tests = str(REPO / "tests")
    if tests not in sys.path:
        sys.path.append(tests)
    import cli_batches

    return cli_batches


def timeout_of(path: pathlib.Path) -> float:
    return load(path).get("timeout", DEFAULT_TIMEOUT)


def run_batch(paths: list[pathlib.Path]) -> dict[str, dict]:
    """Several cases in one subprocess; {case file name: summary} for the cases it reported on."""
    keys = [str(p.resolve()) for p in paths]
    results = cli_batches().run_batch(pathlib.Path(__file__).resolve(), "batch_case", keys,
                                      {k: timeout_of(pathlib.Path(k)) for k in keys}, env=_env(), cwd=REPO)
    return {pathlib.Path(k).name: r for k, r in results.items()}


def batch_case(child, key: str) -> dict:
    """Inside the batch subprocess: one case (a file name under cases/, or a path) as `python -m
    pytest_kernelopt.cli judge ...` would run it; the files under the marker directory are compared right before
    and right after this case."""
    path = CASES / key
    case = load(path)
    with tempfile.TemporaryDirectory(prefix="kernelopt_rt2_") as tmp:
        cand = pathlib.Path(tmp) / "candidate.json"
        cand.write_text(json.dumps(case["candidate"]))
        before = _snapshot()
        r = child.run_cli(judge_argv(case, str(cand)), cwd=REPO)
        changed = _changed(before, _snapshot())
    return summarize(path, case, r["rc"], False, r["stdout"], r["stderr"], r["seconds"], changed)


def run_all(paths: list[pathlib.Path]) -> list[dict]:
    results = run_batch(paths) if paths else {}
    return [results[p.name] if p.name in results else run_case(p) for p in paths]


def main(argv: list[str]) -> None:
    paths = [pathlib.Path(a) if pathlib.Path(a).exists() else CASES / a for a in argv] or case_files()
    paths = [p.resolve() for p in paths]
    results = run_batch(paths) if paths else {}
    for r in results.values():
        print(json.dumps({k: r.get(k) for k in ("case", "expect", "rc", "hung", "seconds", "decision", "gate",
                                                 "reason", "new_files", "traceback")}, ensure_ascii=False), flush=True)
    for p in paths:
        if p.name not in results:
            results[p.name] = r = run_case(p)
            print(json.dumps({k: r.get(k) for k in ("case", "expect", "rc", "hung", "seconds", "decision", "gate",
                                                     "reason", "new_files", "traceback")}, ensure_ascii=False),
                  flush=True)
    out = pathlib.Path(os.environ.get("RT2_RESULTS", "/tmp/kernelopt_rt2_results.json"))
    out.write_text(json.dumps([results[p.name] for p in paths], indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1:])
