"""``kernelopt bench --compare-modes`` (issue 14, item 2).

On the CPU, in a subprocess as CI runs it: two tiny problems, correctness only, every timing and max-autotune
column "not measured" (never a number); a rerun skips the problems already done; a broken problem is recorded
as failed and the others complete.  In-process, with a wall-clock stand-in for the gate's timer (the CUDA
timer cannot run here): the bookkeeping of the timed (GPU) path, a mode that runs out of memory recorded and
dropped while the others are timed, a kept baseline counted 1.0x over default compile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the two fastest on the CPU interpreter (about 5 s each with proposer none)
FAST = [ROOT / "examples/problems/pointwise_chain.py", ROOT / "benchmarks/problems/reduce_sum_dim1.py"]
BROKEN = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        raise RuntimeError("broken on purpose")


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
'''
NM = "not measured"


def compare_modes(*paths: Path, out: Path, cwd: Path, extra: tuple = ()) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               KERNELOPT_PROBLEM_SCALE="small")
    return subprocess.run([sys.executable, "-m", "pytest_kernelopt.cli", "bench", "--backend", "cpu", "--no-cache",
                           "--proposer", "none", "--no-isolate", "--seeds", "1", "--compare-modes", "--out", str(out),
                           *extra, *map(str, paths)], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def records(out: Path) -> dict[str, dict]:
    doc = json.loads((out / "compare_modes.json").read_text())
    return {r["name"]: r for r in doc["problems"]}


def check_not_measured(rec: dict) -> None:
    assert rec["status"] == "done" and rec["measured"] is False
    for mode, m in rec["modes"].items():
        assert m["ms"] == NM, mode
        if mode != "eager":
            assert m["compile_s"] == NM, mode
    assert rec["speedup"] == {b: NM for b in ("eager", "default", "max-autotune", "max-autotune+cd")}
    for mode in ("max-autotune", "max-autotune+cd"):
        assert rec["modes"][mode]["correct"] is None and "neither compiled nor timed" in rec["modes"][mode]["note"]
    for mode in ("default", "ours"):  # correctness is what the CPU path checks
        assert rec["modes"][mode]["correct"] is True, mode


def test_compare_modes_on_the_cpu_resumes_and_records_a_broken_problem(tmp_path):
    t0 = time.perf_counter()
    broken = tmp_path / "broken.py"
    broken.write_text(BROKEN)
    out = tmp_path / "results"

    first = compare_modes(FAST[0], broken, out=out, cwd=tmp_path)
    assert first.returncode == 1, first.stdout + first.stderr  # a failed problem: exit 1, the run went on
    recs = records(out)
    check_not_measured(recs["pointwise_chain"])
    assert recs["broken"]["status"] == "failed" and "broken on purpose" in recs["broken"]["error"]
    md = (out / "compare_modes.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| pointwise_chain |"))
    assert row.count(NM) == 12  # compile s (3, in one cell), 5 modes' ms, 4 speedups
    assert "1.000x" not in md and "performance not measured" in md and "Failed problems" in md
    assert "over max-autotune-no-cudagraphs: not measured" in md
    assert "chart skipped" in md and not (out / "compare_modes.png").exists()
    assert "1 done, 1 failed" in md
    assert recs["pointwise_chain"]["min_speedup"] == 1.02
    assert "the performance gate's bar (`min_speedup`, the lower confidence bound a kernel of ours had to reach): 1.02" in md

    # a rerun (after a cut-off, or with more problems) skips what is done and retries what failed
    second = compare_modes(FAST[0], FAST[1], broken, out=out, cwd=tmp_path)
    assert second.returncode == 1, second.stdout + second.stderr
    assert "1 of 3 problem(s) already in" in second.stdout
    assert "pointwise_chain: skipped (done" in second.stderr
    assert "[1/3]" not in second.stdout and "[2/3]" in second.stdout and "[3/3]" in second.stdout
    again = records(out)
    assert again["pointwise_chain"] == recs["pointwise_chain"]  # untouched
    check_not_measured(again["reduce_sum_dim1"])
    assert again["broken"]["status"] == "failed"
    doc = json.loads((out / "compare_modes.json").read_text())
    assert doc["meta"]["complete"] is False and "no GPU" in doc["meta"]["not_measured"]
    assert "2 done, 1 failed" in (out / "compare_modes.md").read_text()

    # --redo measures a done problem again (its record replaced); --skip-failed leaves the broken one alone
    for r in doc["problems"]:
        r["marker"] = "before --redo"
    (out / "compare_modes.json").write_text(json.dumps(doc))
    third = compare_modes(FAST[0], FAST[1], broken, out=out, cwd=tmp_path,
                          extra=("--redo", "pointwise_chain", "--skip-failed"))
    assert third.returncode == 1, third.stdout + third.stderr  # the broken problem is still recorded as failed
    assert "[1/3]" in third.stdout and "[2/3]" not in third.stdout and "[3/3]" not in third.stdout
    redone = records(out)
    assert redone["reduce_sum_dim1"]["marker"] == redone["broken"]["marker"] == "before --redo"
    check_not_measured(redone["pointwise_chain"])
    assert "marker" not in redone["pointwise_chain"]  # a new record
    typo = compare_modes(FAST[0], out=out, cwd=tmp_path, extra=("--redo", "pointwise_chian"))
    assert typo.returncode == 2 and "--redo names no problem given: pointwise_chian" in typo.stderr
    print(f"four subprocess runs: {time.perf_counter() - t0:.1f}s")


def test_timed_path_bookkeeping_with_a_stand_in_timer(tmp_path, monkeypatch, backend, capsys):
    """The GPU path's logic on the CPU: the gate's CUDA timer replaced by wall-clock time, max-autotune made to
    run out of memory while timed.  Not a measurement: only what is recorded and how."""
    if backend.name != "cpu":
        pytest.skip("the stand-in runs the CPU backend's interpreter; on a GPU the real path runs")
    import argparse
    from dataclasses import replace

    import torch

    import pytest_kernelopt.gates.timing as timing
    from pytest_kernelopt.bench import command, measure, modes, render
    from pytest_kernelopt.config import Settings

    seen = []

    def wall_clock(variants, n_inputs, samples, warmup, after=None, prime=False, rotate=False):
        seen.append((len(variants), samples, prime, rotate))
        times = [[] for _ in variants]
        for i in range(samples):
            for j in timing.interleave_order(len(variants), i, rotate):
                select, call = variants[j]
                select()
                if prime:
                    call(0)
                t = time.perf_counter()
                call(0)
                times[j].append((time.perf_counter() - t) * 1e3)
        return times

    real_compile = measure.compile_mode

    def compile_mode(mode, module, inputs, be):
        fn, out, secs = real_compile(mode, module, inputs, be)
        if mode != "max-autotune":
            return fn, out, secs

        def oom(*args):
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (stand-in)")

        return oom, out, secs

    monkeypatch.setattr(measure, "time_interleaved", wall_clock)
    monkeypatch.setattr(measure, "compile_mode", compile_mode)
    for where in (measure, command):  # MA and MA+CD compiled apart
        monkeypatch.setattr(where, "autotune_has_cd", lambda: False)
    timed = replace(backend, measures_time=True, description="CPU with a stand-in timer")
    settings = Settings().with_overrides({"mode": "optimize", "proposer": "none", "isolate": False, "seeds": 1,
                                         "perf_samples": 5, "perf_warmup": 0})
    args = argparse.Namespace(out=str(tmp_path), skip_failed=False, stop_after=None, no_cache=True, report=None)
    assert command.run_compare_modes(args, settings, timed, [FAST[0]], "none") == 0
    rec = records(tmp_path)["pointwise_chain"]
    m = rec["modes"]
    # eager, default, MA, MA+CD and the default's A/A slot: each round primed, rotating, a whole number of
    # turns (5 samples asked, 10 taken: every variant in each of the 5 slots twice); MA's OOM drops it and the
    # other four are timed again (8 a round)
    assert all(prime and rotate and samples % (2 * n) == 0 and samples >= 5 for n, samples, prime, rotate in seen)
    assert seen[0][:2] == (5, 10) and seen[-1][:2] == (4, 8)
    per_round = 8
    rounds = m["eager"]["samples"] // per_round  # as many rounds as the wall clock's noise asked for
    assert 1 <= rounds <= measure.MAX_ROUNDS and m["eager"]["samples"] == per_round * rounds
    for mode in ("eager", "default", "max-autotune+cd", "ours"):
        assert isinstance(m[mode]["ms"], float) and m[mode]["samples"] == per_round * rounds, mode
    aa = rec["timer_aa"]  # the default column's function again, in a slot of its own
    assert aa["ci"][0] <= aa["x"] <= aa["ci"][1] and modes.AA not in m
    for mode in ("default", "max-autotune", "max-autotune+cd"):
        assert isinstance(m[mode]["compile_s"], float), mode
    assert m["max-autotune"]["ms"] is None and "out of memory" in m["max-autotune"]["error"]
    assert m["max-autotune+cd"]["inductor"]["config_patch"]["coordinate_descent_tuning"] is True
    assert m["ours"]["same_as"] == "default" and m["ours"]["ms"] == m["default"]["ms"]  # nothing applied
    sp = rec["speedup"]
    assert sp["default"] == {"x": 1.0, "kept": True}  # a kept baseline counts 1.0x
    assert "out of memory" in sp["max-autotune"]["error"]
    assert sp["max-autotune+cd"]["ci"][0] <= sp["max-autotune+cd"]["x"] <= sp["max-autotune+cd"]["ci"][1]
    md = (tmp_path / "compare_modes.md").read_text()
    assert "1.000x (kept)" in md and "MA failed: while timed: out of memory" in md
    assert "| timer A/A |" in md and "the timer's A/A (the default column's function timed again" in md
    assert "over max-autotune-no-cudagraphs: not measured" in md and "over compile default: **1.000x**" in md
    summary = render.summarize([rec])
    assert summary["default"]["geomean"] == 1.0 and summary["max-autotune"] == NM
    # max-autotune's own launch configs, captured last, beside the default compile's for the same kernel source
    picks = rec["autotune_picks"]
    assert picks and all(p["max-autotune"]["num_warps"] for p in picks), rec.get("autotune_picks_error")
    assert any(p["same_source_as_default"] and p["default"] for p in picks)
    assert all(p["ours"] is None for p in picks)  # nothing applied
    assert [k["decision"] for k in rec["kernels"]] and all(k["kernel"] for k in rec["kernels"])
    capsys.readouterr()


def test_chart_and_geomeans_from_records(tmp_path):
    from pytest_kernelopt.bench import render

    def rec(name, ma, cd, kernels=1):
        return {"name": name, "status": "done", "triton_kernels": kernels,
                "speedup": {"eager": {"x": 2.0}, "default": {"x": 1.0, "kept": True},
                            "max-autotune": {"x": ma, "ci": [ma, ma]}, "max-autotune+cd": {"x": cd, "ci": [cd, cd]}}}

    recs = [rec("a", 1.2, 1.1), rec("b", 0.9, 0.95), rec("c", 1.0, 1.0, kernels=0)]
    s = render.summarize(recs)
    assert s["max-autotune+cd"]["below_floor"] == ["b"] and s["max-autotune+cd"]["min_problem"] == "b"
    assert s["max-autotune"]["geomean"] == pytest.approx((1.2 * 0.9 * 1.0) ** (1 / 3), abs=1e-4)
    assert s["max-autotune"]["geomean_with_triton_kernels"] == pytest.approx((1.2 * 0.9) ** 0.5, abs=1e-4)
    note = render.write_chart(recs, tmp_path / "c.png")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert note == "chart skipped: matplotlib not installed (pip install pytest-kernelopt[plot])"
    else:
        assert (tmp_path / "c.png").stat().st_size > 0 and note.startswith("c.png")


def test_ours_can_start_from_the_max_autotune_compile(tmp_path, monkeypatch, backend, capsys):
    """``--compile-mode max-autotune-no-cudagraphs``: ours is captured in that mode (its own column when nothing
    was applied, never "the default compile"), the default column is compiled apart, and nothing counts as a
    kept 1.0x over default compile.  The stand-in timer as above: bookkeeping, not a measurement."""
    if backend.name != "cpu":
        pytest.skip("the stand-in runs the CPU backend's interpreter; on a GPU the real path runs")
    import argparse
    from dataclasses import replace

    from pytest_kernelopt.bench import command, measure
    from pytest_kernelopt.config import Settings

    per_round = []

    def wall_clock(variants, n_inputs, samples, warmup, after=None, prime=False, rotate=False):
        per_round.append(samples)
        times = [[] for _ in variants]
        for _ in range(samples):
            for j, (select, call) in enumerate(variants):
                select()
                t = time.perf_counter()
                call(0)
                times[j].append((time.perf_counter() - t) * 1e3)
        return times

    modes_captured = []
    real_capture = measure.capture

    def capture(*a, **kw):
        modes_captured.append(kw.get("mode"))
        return real_capture(*a, **kw)

    monkeypatch.setattr(measure, "time_interleaved", wall_clock)
    monkeypatch.setattr(measure, "capture", capture)
    timed = replace(backend, measures_time=True, description="CPU with a stand-in timer")
    settings = Settings().with_overrides({"mode": "optimize", "proposer": "none", "isolate": False, "seeds": 1,
                                         "perf_samples": 5, "perf_warmup": 0,
                                         "compile_mode": "max-autotune-no-cudagraphs"})
    args = argparse.Namespace(out=str(tmp_path), skip_failed=False, stop_after=None, no_cache=True, report=None)
    assert command.run_compare_modes(args, settings, timed, [FAST[0]], "none") == 0
    assert "max-autotune-no-cudagraphs" in modes_captured
    rec = records(tmp_path)["pointwise_chain"]
    assert rec["ours_compile_mode"] == "max-autotune-no-cudagraphs"
    m = rec["modes"]
    assert "same_as" not in m["ours"] and "max-autotune-no-cudagraphs compile" in m["ours"]["note"]
    assert m["ours"]["correct"] is True and m["default"]["correct"] is True
    for mode in ("eager", "default", "ours"):
        assert isinstance(m[mode]["ms"], float) and m[mode]["samples"] == m["eager"]["samples"], mode
        assert m[mode]["samples"] == sum(per_round) and len(set(per_round)) == 1, mode  # equal rounds
    assert 1 <= len(per_round) <= measure.MAX_ROUNDS and per_round[0] >= 5
    sp = rec["speedup"]["default"]
    assert "ci" in sp and sp["kept"] is True  # an interval, not a kept 1.0x
    md = (tmp_path / "compare_modes.md").read_text()
    assert "ours starts from the `max-autotune-no-cudagraphs` compile" in md
    assert "kept baselines count 1.0x" not in md
    # a later run in the default mode measures the problem again instead of skipping it
    doc = json.loads((tmp_path / "compare_modes.json").read_text())
    assert doc["meta"]["compile_mode"] == "max-autotune-no-cudagraphs"
    capsys.readouterr()


def test_search_time_by_phase_in_the_report():
    """Where a problem's search time went (the profile, max-autotune's compile for its picks, the looped
    variant's compile, screening, gates), summed over its kernels, as the report's table shows it."""
    from pytest_kernelopt.bench import modes, render

    rec = {"name": "p", "backend": "cuda", "status": "done", "search_s": 30.0, "profile_s": 4.0, "triton_kernels": 2,
           "modes": {m: {"ms": 1.0, "compile_s": 1.0} for m in modes.MODES}, "speedup": {},
           "kernels": [{"kernel": "k0", "phases": {"autotune_picks": 10.0, "screening": 6.5, "gates": 3.0}},
                       {"kernel": "k1", "phases": {"screening": 1.5, "gates": 2.25, "truths": 1.5,
                                                   "transfer": 0.5}}]}
    assert render.search_phases(rec) == {"profile": 4.0, "autotune_picks": 10.0, "screening": 8.0,
                                              "gates": 5.25, "truths": 1.5, "transfer": 0.5}
    assert render.search_phases({"name": "q", "kernels": [{"kernel": "k", "phases": {}}]}) == {}
    md = render.render_markdown({"meta": {}, "problems": [rec]}, "cuda", "no chart")
    assert "## Where the search time went (s)" in md
    row = next(line for line in md.splitlines() if line.startswith("| p | 30.0 |"))
    assert row == "| p | 30.0 | 4.0 | 10.0 | - | 8.0 | 5.2 | - | 1.5 | 0.5 | - |"
    assert "truths, the float64 truths' runs" in md


def test_modes_are_timed_in_rounds_until_the_interval_is_narrow(monkeypatch):
    """Another round of samples while ours' interval against a compiled mode is wider than PRECISION, up to
    MAX_ROUNDS rounds; the eager column's spread is not read."""
    from pytest_kernelopt.bench import measure
    from pytest_kernelopt.config import Settings

    calls = []

    def timer(spread):
        def stand_in(variants, n_inputs, samples, warmup, after=None, prime=False, rotate=False):
            assert prime and rotate
            calls.append(samples)
            k = len(calls)
            # ours steady; the other compiled mode (and eager) alternate by ``spread`` around 1 ms
            return [[1.0 + (spread if (i + k) % 2 else -spread) for i in range(samples)] if name != "ours"
                    else [1.0] * samples for name in names]
        return stand_in

    settings = Settings().with_overrides({"perf_samples": 10, "perf_warmup": 0})
    names = ["eager", "default", "ours"]
    variants = {m: (lambda: None, lambda i: None) for m in names}
    for spread, rounds in ((0.001, 1), (0.2, measure.MAX_ROUNDS)):
        calls.clear()
        monkeypatch.setattr(measure, "time_interleaved", timer(spread))
        times = measure.time_modes(variants, settings, None, {})
        assert calls == [12] * rounds, spread  # 10 asked, rounded up to whole turns of 2 x 3 variants
        assert all(len(t) == 12 * rounds for t in times.values())
    assert measure.widest_interval({"eager": [1.0, 3.0] * 20, "ours": [1.0] * 40}, 0.95) == 0.0
    wide = measure.widest_interval({"max-autotune": [0.8, 1.2] * 20, "ours": [1.0] * 40}, 0.95)
    assert wide > measure.PRECISION


def test_a_mode_beyond_eagers_tolerance_is_judged_against_the_float64_truth(tmp_path):
    """On the H200 every compiled mode of the float32 cumsums, the default compile included, was 'beyond
    tolerance' of eager's output: their rounding differs, their accuracy does not.  Beyond tolerance, a mode is
    compared with the float64 truth: as accurate as eager there (within AS_ACCURATE) is correct and said so;
    less accurate is a difference, with both errors; a truth that cannot be computed leaves the difference."""
    import torch

    from pytest_kernelopt.bench.measure import AS_ACCURATE, Float64Truth, check_output
    from pytest_kernelopt.bench.render import _cell_correct
    from pytest_kernelopt.config import Settings
    from pytest_kernelopt.problems import ProblemSpec

    problem = tmp_path / "cumsum_long.py"
    problem.write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                       "        return torch.cumsum(x, dim=1)\n\n"
                       "def get_inputs():\n    return [torch.randn(2, 4096)]\n\n"
                       "def get_init_inputs():\n    return []\n")
    from pytest_kernelopt.problems import build_problem

    p = build_problem(ProblemSpec.from_file(problem), "cpu", 0)
    exact = torch.cumsum(p.example_inputs[0].double(), dim=1)
    noise = torch.randn(exact.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    scale = exact.abs().max().item() * 1e-2  # far beyond the correctness tolerance of eager's output
    eager = (exact + scale * noise).float()
    same = (exact - scale * noise.flip(1)).float()  # other errors, as large
    worse = (exact + 3 * AS_ACCURATE * scale * noise.flip(0)).float()
    settings = Settings()
    truth = Float64Truth(ProblemSpec.from_file(problem), "cpu", 0, eager)

    assert check_output(eager, eager, settings, truth) == {"correct": True, "max_abs_err": 0.0}
    ok = check_output(same, eager, settings, truth)
    assert ok["correct"] is True and "differs" not in ok and ok["as_accurate_as_eager"].startswith("beyond")
    mine, theirs = ok["vs_float64"]["rel_l2"][0], ok["vs_float64"]["eager_rel_l2"][0]
    assert 0.5 < mine / theirs < 1.5
    bad = check_output(worse, eager, settings, truth)
    assert bad["correct"] is False and "less accurate than eager against float64" in bad["differs"]
    # without a truth (or where it cannot be computed), beyond tolerance stays a difference
    assert check_output(same, eager, settings)["correct"] is False
    broken = Float64Truth(ProblemSpec.from_file(problem), "cpu", 0, eager)
    broken._compute = lambda: (_ for _ in ()).throw(RuntimeError("no float64 kernel"))
    res = check_output(same, eager, settings, broken)
    assert res["correct"] is False and "float64 truth not computed: RuntimeError: no float64 kernel" in res["differs"]
    # the report's column says which modes matched eager and which were only as accurate
    rec = {"modes": {"default": {"correct": True}, "max-autotune": {"correct": True, "as_accurate_as_eager": "x"},
                     "max-autotune+cd": {"correct": True, "as_accurate_as_eager": "x"}, "ours": {"correct": True}}}
    assert _cell_correct(rec) == ("default, ours match eager; MA, MA+CD beyond eager's tolerance, as accurate as "
                                  "eager against float64")


def test_the_report_names_the_performance_gates_bar_each_problem_was_searched_at():
    """Session 19: a suite re-run at a lower `min_speedup` must not be read as the default one."""
    from pytest_kernelopt.bench import modes, render

    def rec(name, **extra):
        return {"name": name, "backend": "cuda", "status": "done", "triton_kernels": 1, "speedup": {},
                "modes": {m: {"ms": 1.0, "compile_s": 1.0} for m in modes.MODES}, "kernels": [], **extra}

    def bar_line(recs):
        md = render.render_markdown({"meta": {}, "problems": recs}, "cuda", "no chart")
        return [line for line in md.splitlines() if "performance gate's bar" in line]

    assert bar_line([rec("a", min_speedup=1.02), rec("b", min_speedup=1.02)])[0].endswith("reach): 1.02")
    (mixed,) = bar_line([rec("a", min_speedup=1.005), rec("b", min_speedup=1.02), rec("c")])
    assert "per problem (`min_speedup` in the JSON): 1.005, 1.02" in mixed
    assert "1 record(s) from before it was recorded (1.02)" in mixed
    assert bar_line([rec("c")]) == []


def test_the_reports_proposer_line_counts_each_proposer_where_runs_mixed_them():
    from pytest_kernelopt.bench.render import _proposers

    done = [{"status": "done", "proposer": "tuner"}] * 3 + [{"status": "done", "proposer": "none"}]
    assert _proposers(done, {"proposer": "none"}) == (
        "tuner (3 problems), none (1 problems: the cache timed again, no search)")
    assert _proposers(done[:3] + [{"status": "failed", "proposer": "none"}], {"proposer": "none"}) == "tuner"
    assert _proposers([], {"proposer": "agents"}) == "agents"


def test_the_config_table_says_what_else_than_the_config_an_applied_kernel_changed():
    """Session 23: the tuner's pipelined reduction loop is a source edit; a table showing only its launch config
    would read as a config max-autotune could have picked."""
    from pytest_kernelopt.bench import modes, render

    cfg = {"XBLOCK": 64, "R0_BLOCK": 64, "num_warps": 16, "num_stages": 1}
    picks = [{"kernel": "k_edit", "max-autotune": {**cfg, "XBLOCK": 128}, "default": cfg, "ours": cfg,
              "ours_edit": "reduction loop pipelined (3 stages)"},
             {"kernel": "k_cfg", "max-autotune": {**cfg, "XBLOCK": 128}, "default": cfg, "ours": {**cfg, "num_warps": 8}},
             {"kernel": "k_kept", "max-autotune": {**cfg, "XBLOCK": 128}, "default": cfg, "ours": None}]
    rec = {"name": "a", "backend": "cuda", "status": "done", "triton_kernels": 3, "speedup": {},
           "modes": {m: {"ms": 1.0, "compile_s": 1.0} for m in modes.MODES}, "kernels": [],
           "autotune_picks": picks}
    md = render.render_markdown({"meta": {}, "problems": [rec]}, "cuda", "no chart")
    rows = {line.split(" | ")[1]: line for line in md.splitlines() if line.startswith("| a | k_")}
    assert rows["k_edit"].endswith("num_stages=1 (reduction loop pipelined (3 stages)) |"), rows["k_edit"]
    assert rows["k_cfg"].endswith("num_warps=8, num_stages=1 |") and rows["k_kept"].endswith("| kept |")


def test_a_results_folder_timed_on_one_gpu_is_not_resumed_on_another(tmp_path, monkeypatch, backend, capsys):
    """Session 24: records are keyed by backend ("cuda"), so an H100 run given the H200's folder would have
    skipped the problems done there, mixed both cards in one geomean and relabelled the whole folder H100."""
    import argparse
    import json
    from dataclasses import replace

    from pytest_kernelopt.bench import command
    from pytest_kernelopt.config import Settings

    doc = {"meta": {"gpu": "NVIDIA H200"}, "problems": [{"problem": "p.py", "backend": "cuda", "status": "done"}]}
    (tmp_path / "compare_modes.json").write_text(json.dumps(doc))
    monkeypatch.setattr(command, "gpu_name", lambda _b: "NVIDIA H100 80GB HBM3")
    args = argparse.Namespace(out=str(tmp_path), skip_failed=False, stop_after=None, no_cache=True, report=None)
    gpu = replace(backend, name="cuda", measures_time=True)
    assert command.run_compare_modes(args, Settings(), gpu, [FAST[0]], "none") == 2
    err = capsys.readouterr().err
    assert "timed on NVIDIA H200" in err and "this GPU is NVIDIA H100 80GB HBM3" in err and "--out" in err
    assert json.loads((tmp_path / "compare_modes.json").read_text()) == doc  # untouched
