"""The cached-run bar: ``pytest --kernelopt-problems`` (verify mode, served from the cache) against plain
``torch.compile`` plus one correctness check of the same problems (benchmarks/plain_compile_check.py).

Three whole processes, timed by wall clock: the plain script, the same job in pytest without the plugin
(pytest's own start-up, plugins and collection) and the plugin's cached run.  They run for ROUNDS rounds,
the order rotated each round so that none is always first after the other two; round 1 fills the caches
(Inductor's FX graph cache, Triton's cache, Python's bytecode) and is reported but not counted.  The bar:
the plugin's run at most 1.10x the plain script (median of the warm rounds; per-round ratios shown too).

Python writes bytecode caches as on any user's machine: ``PYTHONDONTWRITEBYTECODE`` is removed from the
children's environment and ``PYTHONPYCACHEPREFIX`` points to a writable folder (the GPU machine sets the
former, which made every process compile torch's and pytest's sources again, several seconds a run).
``--no-bytecode-cache`` keeps the environment as it is.  With ``--profile DIR`` one more plugin run is
made under cProfile and its top functions are written there.

    python benchmarks/cached_run_overhead.py [--rounds 5] [--profile DIR] [--report OUT.json] PROBLEM_DIR
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    with log.open("a") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
    dt = time.perf_counter() - t0
    if rc != 0:
        raise SystemExit(f"command failed ({rc}); see {log}: {' '.join(cmd)}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("problems")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="leave PYTHONDONTWRITEBYTECODE as the environment has it")
    ap.add_argument("--profile", default=None)
    ap.add_argument("--report", default=None)
    ap.add_argument("--log", default="cached_run_overhead.log")
    a = ap.parse_args()
    files = sorted(str(p) for p in Path(a.problems).glob("[a-z]*.py"))
    py = sys.executable
    plain = [py, "benchmarks/plain_compile_check.py", *files]
    report = Path(a.log).with_suffix(".plugin.json")
    from importlib.metadata import entry_points

    installed = any(ep.name == "kernelopt" for ep in entry_points(group="pytest11"))
    load = [] if installed else ["-p", "pytest_kernelopt.plugin"]  # not pip-installed: load it by name
    plugin = [py, "-m", "pytest", *load, "-p", "no:cacheprovider", "-q",
              "--kernelopt-problems", a.problems, f"--kernelopt-report={report}"]
    # pytest alone doing the plain job: separates pytest's start-up from what the plugin adds
    env = dict(os.environ, KERNELOPT_PLAIN_PROBLEMS=a.problems)
    if not a.no_bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.setdefault("PYTHONPYCACHEPREFIX", str(Path(a.log).resolve().parent / "pycache"))
    probe = subprocess.run([py, "-c", "import sys; print(sys.dont_write_bytecode)"], env=env,
                           capture_output=True, text=True).stdout.strip()
    print(f"children write bytecode caches: {probe == 'False'} (PYTHONPYCACHEPREFIX="
          f"{env.get('PYTHONPYCACHEPREFIX', '-')})", flush=True)
    junit = Path(a.log).with_suffix(".plain.xml")
    plain_pytest = [py, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:kernelopt", "-q",
                    "benchmarks/plain_compile_test.py", f"--junitxml={junit}"]
    log = Path(a.log)
    rows = []
    variants = {"plain_s": plain, "plain_pytest_s": plain_pytest, "plugin_s": plugin}
    names = list(variants)
    for r in range(1, a.rounds + 1):
        order = names[(r - 1) % 3:] + names[:(r - 1) % 3]
        t = {k: timed(variants[k], log, env) for k in order}
        tp, tq, tk = t["plain_s"], t["plain_pytest_s"], t["plugin_s"]
        rows.append({"round": r, "order": order, "plain_s": round(tp, 2), "plain_pytest_s": round(tq, 2),
                     "plugin_s": round(tk, 2), "ratio": round(tk / tp, 3), "ratio_vs_pytest": round(tk / tq, 3)})
        print(f"round {r}: plain script {tp:6.1f}s  plain in pytest {tq:6.1f}s  plugin (cached run) {tk:6.1f}s  "
              f"plugin/plain {tk / tp:.3f}  plugin/plain-pytest {tk / tq:.3f}", flush=True)
        doc = json.loads(report.read_text())
        rows[-1]["per_test"] = {t["test"].split("::")[-1]: [round(t["setup_seconds"] or 0, 2), round(t["seconds"], 2)]
                                for t in doc["tests"]}
        inside = sum(a + b for a, b in rows[-1]["per_test"].values())
        import xml.etree.ElementTree as ET

        plain_inside = sum(float(tc.get("time", 0)) for tc in ET.parse(junit).iter("testcase"))
        rows[-1].update(plugin_inside_s=round(inside, 2), plain_pytest_inside_s=round(plain_inside, 2))
        print(f"         inside the tests: plain-pytest {plain_inside:.1f}s, plugin {inside:.1f}s (build+capture, "
              f"then cache re-checks); outside them (start-up, collection, summary): plain-pytest "
              f"{tq - plain_inside:.1f}s, plugin {tk - inside:.1f}s", flush=True)
        if a.report:  # after every round: a run cut short by its time limit keeps what it measured
            Path(a.report).write_text(json.dumps({"rounds": rows, "bytecode_cache": probe == "False",
                                                    "problems": files}, indent=2))
    warm = rows[1:] or rows
    med = {k: statistics.median(x[k] for x in warm) for k in ("plain_s", "plain_pytest_s", "plugin_s")}
    ratio = med["plugin_s"] / med["plain_s"]
    verdict = "meets" if ratio <= 1.10 else "does NOT meet"
    per_round = sorted(x["ratio"] for x in warm)
    print(f"warm per-round plugin/plain ratios: {', '.join(f'{x:.3f}' for x in per_round)}; "
          f"median {statistics.median(per_round):.3f}")
    print(f"warm rounds (median): plain script {med['plain_s']:.1f}s, plain in pytest {med['plain_pytest_s']:.1f}s, "
          f"plugin {med['plugin_s']:.1f}s; plugin/plain = {ratio:.3f} ({verdict} the 1.10 bar); "
          f"plugin/plain-pytest = {med['plugin_s'] / med['plain_pytest_s']:.3f}; {len(files)} problems")
    if a.profile:
        out = Path(a.profile)
        out.mkdir(parents=True, exist_ok=True)
        prof = out / "plugin_run.prof"
        timed([py, "-m", "cProfile", "-o", str(prof), *plugin[1:]], log, env)
        import pstats

        with (out / "plugin_run_top.txt").open("w") as f:
            st = pstats.Stats(str(prof), stream=f)
            st.sort_stats("cumulative").print_stats(60)
            st.sort_stats("tottime").print_stats(30)
        print(f"profile: {out / 'plugin_run_top.txt'}")
    if a.report:
        Path(a.report).write_text(json.dumps({"rounds": rows, "warm_ratio": ratio, "warm_medians": med,
                                                "bytecode_cache": probe == "False", "problems": files}, indent=2))


if __name__ == "__main__":
    main()
