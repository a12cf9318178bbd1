"""What a run serves from the cache: fused entries, and optimize runs with nothing left to search."""

from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")

from kernel_sources import FUSED_REVERSE_CUMSUM, reverse_cumsum_launch  # noqa: E402

from pytest_kernelopt.cache import KernelCache  # noqa: E402
from pytest_kernelopt.candidate import Candidate, LaunchSpec  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.results import CascadeResult, GateResult  # noqa: E402
from pytest_kernelopt.optimize import LocalEvaluator  # noqa: E402
from pytest_kernelopt.tuner import SEARCH_SPACE  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, problem_from_objects  # noqa: E402
from pytest_kernelopt.workflow import cache_key, device_key, run_kernelopt, run_problem_spec  # noqa: E402

PROBLEM = '''
import torch, torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x * 0.5, dim=-1)

def get_inputs():
    return [torch.randn(4, 32)]

def get_init_inputs():
    return []
'''


class ReverseCumsum(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x.flip(1), dim=1).flip(1)


def _accepted(cand: Candidate) -> CascadeResult:
    perf = GateResult("performance", "pass", "recorded", {"speedup": 1.3, "ci_low": 1.2, "ci_high": 1.4,
                                                           "measured": True})
    return CascadeResult(cand.replaces, cand.content_hash, (GateResult("static", "pass"), perf), "accepted")


def _plus_one(src: str) -> str:
    """A wrong kernel: adds 1.0 to what it stores (every gate after the static one rejects it)."""
    line = next(ln for ln in src.splitlines() if "tl.store(" in ln)
    value = line.split(",")[1].strip()
    return src.replace(line, line.replace(f", {value},", f", {value} + 1.0,"))


def test_a_fused_entry_is_served_and_its_kernels_are_not_looked_up_alone(tmp_path, backend):
    x = torch.randn(4, 64, device=backend.device)
    settings = Settings(seeds=2, cache_dir=str(tmp_path / "kc"))
    session = EvaluationSession(problem_from_objects(ReverseCumsum(), (x,), "rcs"), settings, backend)
    ev = LocalEvaluator(session)
    g = ev.graphs[0]
    (run,) = g.contiguous_runs()
    device = device_key(backend)
    cache = KernelCache(tmp_path / "kc")
    launch = LaunchSpec.from_json(reverse_cumsum_launch(g, run, "fused_reverse_cumsum", rows=4, rblock=64))
    fused = Candidate(tuple(run), FUSED_REVERSE_CUMSUM, launch=launch, origin="agents")
    cache.store_accepted(cache_key(g, tuple(run), ev.inputs, device), fused, [g.kernels[n] for n in run],
                         _accepted(fused), problem_id="rcs")
    # a wrong single-kernel entry for the run's first kernel: applied, it would be a regression
    wrong = Candidate((run[0],), _plus_one(g.kernels[run[0]].source), origin="tuner")
    cache.store_accepted(cache_key(g, (run[0],), ev.inputs, device), wrong, [g.kernels[run[0]]], _accepted(wrong),
                         problem_id="rcs")

    record = run_kernelopt(ev, settings, backend, name="rcs", problem_id="rcs")
    assert record.regressions == [], record.regressions
    assert [(k.kernel, k.decision, k.kind) for k in record.kernels] == [("+".join(run), "cached", "fusion")]
    assert record.applied == [fused]
    assert record.uncached == [] and record.uncached_runs == []
    assert record.left_to_search("agents") == 0


def test_without_a_fused_entry_the_single_entries_apply_and_the_run_is_left_for_the_agents(tmp_path, backend):
    x = torch.randn(4, 64, device=backend.device)
    settings = Settings(seeds=2, cache_dir=str(tmp_path / "kc"))
    ev = LocalEvaluator(EvaluationSession(problem_from_objects(ReverseCumsum(), (x,), "rcs"), settings, backend))
    g = ev.graphs[0]
    (run,) = g.contiguous_runs()
    KernelCache(tmp_path / "kc").store_baseline_kept(cache_key(g, (run[1],), ev.inputs, device_key(backend)),
                                                     [g.kernels[run[1]]], problem_id="rcs", reason="scripted")
    record = run_kernelopt(ev, settings, backend, name="rcs", problem_id="rcs")
    assert [(k.kernel, k.decision) for k in record.kernels] == [(run[1], "baseline_kept")]
    assert record.uncached == [run[0]] and record.uncached_runs == ["+".join(run)]
    assert record.untunable == [], "the tuner has launch configurations for both kernel kinds here"
    assert record.left_to_search("tuner") == 1 and record.left_to_search("agents") == 2
    assert record.left_to_search("none") == 0


def test_a_kernel_the_tuner_cannot_search_leaves_nothing_for_it():
    """A kernel the tuner has no launch configuration for (a template, a cooperative reduction): with the
    tuner, an optimize run would start a worker and profile the module only to say so, every time."""
    from pytest_kernelopt.records import RunRecord

    r = RunRecord("m", "cuda", "verify", [], [], [], 0.0, uncached=["triton_spl_0", "triton_poi_1"],
                  uncached_runs=["triton_spl_0+triton_poi_1"], untunable=["triton_spl_0"])
    assert r.left_to_search("tuner") == 1 and r.left_to_search("agents") == 3 and r.left_to_search("none") == 0


def test_the_summary_says_which_kernels_only_the_agents_search():
    """`pytest --kernelopt` with the tuner leaves a kernel it cannot search as it was: the summary must not promise
    otherwise."""
    from pytest_kernelopt.harness import _uncovered_hint

    (verify,) = _uncovered_hint(2, 1, "verify")
    assert verify.startswith("2 Triton kernel(s) have no cache entry") and "pytest --kernelopt" in verify
    assert "1 of them only with the agents" in verify
    assert "only with the agents" not in _uncovered_hint(2, 0, "verify")[0]
    (optimize,) = _uncovered_hint(1, 1, "optimize")
    assert optimize.startswith("1 Triton kernel(s) have no cache entry and the offline tuner has no launch")
    assert "--kernelopt-proposer=agents" in optimize
    assert _uncovered_hint(0, 0, "verify") == [] and _uncovered_hint(1, 0, "optimize") == []


def _softmax_entry(tmp_path, backend, launch_config: bool = False) -> tuple[ProblemSpec, str]:
    """A problem file and an accepted cache entry (an equivalent kernel) for its one Triton kernel: its source
    alone (free-form code), or ``launch_config``, under the baseline's own launch config."""
    from pytest_kernelopt.capture import capture
    from pytest_kernelopt.problems import build_problem, input_signature

    path = tmp_path / "softmax_problem.py"
    path.write_text(PROBLEM)
    spec = ProblemSpec.from_file(path)
    problem = build_problem(spec, backend.device)
    g = capture(problem.module, problem.example_inputs, backend=backend).graphs[0]
    (name,) = g.kernels
    cand = Candidate((name,), g.kernels[name].source.replace("tl.store(", "tl.store(", 1), origin="tuner")
    if launch_config:
        from pytest_kernelopt.launch_space import own_candidate

        cand = own_candidate(g, name, origin="tuner")
    key = cache_key(g, (name,), input_signature(problem.example_inputs), device_key(backend))
    KernelCache(tmp_path / "kc").store_accepted(key, cand, [g.kernels[name]], _accepted(cand), problem_id=str(path))
    torch._dynamo.reset()
    return spec, name


class WorkerStarted(Exception):
    pass


def _no_worker(monkeypatch) -> list:
    started: list = []

    def refuse(spec, settings, **kw):
        started.append(spec.name)
        raise WorkerStarted(spec.name)

    # wherever the workflow starts a worker: serving cached kernels (verify mode) and searching
    for where in ("serve", "run"):
        monkeypatch.setattr(f"pytest_kernelopt.workflow.{where}.IsolatedEvaluator", refuse)
    return started


def test_an_unknown_cache_entry_is_judged_in_a_worker_once_then_trusted(tmp_path, backend, monkeypatch):
    from pytest_kernelopt.trust import trust_dir

    monkeypatch.setenv("KERNELOPT_TRUST_DIR", str(tmp_path / "trust"))
    spec, name = _softmax_entry(tmp_path, backend)
    settings = Settings(mode="verify", seeds=2, cache_dir=str(tmp_path / "kc"))
    lines: list[str] = []
    record = run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref, progress=lines.append)
    assert [(k.kernel, k.decision, k.source) for k in record.kernels] == [(name, "cached", "cache")], record.kernels
    assert any("in a worker process (first time on this machine)" in ln for ln in lines), lines
    assert len(list(trust_dir().glob("*"))) == 1, "the isolated verdict is recorded outside the repository"
    started = _no_worker(monkeypatch)
    again = run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref)
    assert started == [] and [(k.kernel, k.decision) for k in again.kernels] == [(name, "cached")]


def test_a_cached_launch_config_is_judged_in_this_process_once_then_trusted(tmp_path, backend, monkeypatch):
    """Checks by provenance in verify mode (gates/provenance.py): an entry that is Inductor's own kernel under a
    launch config carries no code of its own, so it needs no worker; the first time this machine sees it, it is
    judged here on every seed, with the checks its class needs, and trusted afterwards (its re-check the quick
    one).  Free-form entries still go to a worker first (the test above)."""
    from pytest_kernelopt.trust import trust_dir

    monkeypatch.setenv("KERNELOPT_TRUST_DIR", str(tmp_path / "trust"))
    spec, name = _softmax_entry(tmp_path, backend, launch_config=True)
    settings = Settings(mode="verify", seeds=2, cache_dir=str(tmp_path / "kc"))
    started = _no_worker(monkeypatch)
    lines: list[str] = []
    record = run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref, progress=lines.append)
    assert started == [], "no worker for Inductor's own code under a launch config"
    assert [(k.kernel, k.decision) for k in record.kernels] == [(name, "cached")], record.kernels
    assert any("in this process (first time on this machine" in ln for ln in lines), lines
    corr = record.kernels[0].numbers["correctness"]
    assert corr["provenance"] == "launch_config" and corr["seeds"] == 2, corr
    assert len(list(trust_dir().glob("*"))) == 1
    lines.clear()
    again = run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref, progress=lines.append)
    assert [(k.kernel, k.decision) for k in again.kernels] == [(name, "cached")]
    assert not any("first time on this machine" in ln for ln in lines), lines
    assert again.kernels[0].numbers["correctness"]["seeds"] == settings.verify_seeds


def test_trust_is_per_cache_key_and_problem(tmp_path, backend, monkeypatch):
    """Red team 15: one body-only kernel under two cache keys (32 x 64 and 64 x 128 inputs), correct at the first
    size only; judged in isolation for the first, it was served for the second after a one-seed re-check.  A
    verdict now holds for the key and the problem it was reached for."""
    from pytest_kernelopt.cache_keys import CacheKey, current_environment
    from pytest_kernelopt.trust import is_trusted, mark_trusted, trust_context

    monkeypatch.setenv("KERNELOPT_TRUST_DIR", str(tmp_path / "trust"))
    env = current_environment()
    cand = Candidate(("triton_poi_0",), "# body only\n", origin="tuner")
    a = CacheKey(("h0",), ((32, 64),), ("torch.float32",), "cpu")
    b = CacheKey(("h0",), ((64, 128),), ("torch.float32",), "cpu")
    mark_trusted(cand, env, trust_context(a, "test_a.py::test_a"), "judged in isolation (test)")
    assert is_trusted(cand, env, trust_context(a, "test_a.py::test_a"))
    assert not is_trusted(cand, env, trust_context(b, "test_a.py::test_a"))  # another key
    assert not is_trusted(cand, env, trust_context(a, "test_b.py::test_b"))  # another problem
    # red team 16: other weights under the same test, or a verdict reached under weaker settings
    from pytest_kernelopt.trust import gate_settings, state_digest

    lin = torch.nn.Linear(4, 4)
    s1 = state_digest(lin)
    with torch.no_grad():
        lin.weight[0, 0] = -lin.weight[0, 0]
    s2 = state_digest(lin)
    assert s1 != s2 and state_digest(lin) == s2 and state_digest(dict(lin.named_parameters())) == s2
    g1, g5 = gate_settings(Settings(seeds=1)), gate_settings(Settings(seeds=5))
    mark_trusted(cand, env, trust_context(a, "t", s1, g1), "judged in isolation (test)")
    assert is_trusted(cand, env, trust_context(a, "t", s1, g1))
    assert not is_trusted(cand, env, trust_context(a, "t", s2, g1))  # other weights
    assert not is_trusted(cand, env, trust_context(a, "t", s1, g5))  # judged with 1 seed, asked with 5
    # red team 22: a verdict of older gates is none of today's (the version number alone had stayed 0.1.0)
    from pytest_kernelopt import trust

    with monkeypatch.context() as m:
        m.setattr(trust, "gates_digest", lambda: "other gates")
        assert not is_trusted(cand, env, trust_context(a, "t", s1, gate_settings(Settings(seeds=1))))
    assert is_trusted(cand, env, trust_context(a, "t", s1, gate_settings(Settings(seeds=1))))

    spec, name = _softmax_entry(tmp_path, backend)
    settings = Settings(mode="verify", seeds=2, cache_dir=str(tmp_path / "kc"))
    run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref)  # judged in a worker
    started = _no_worker(monkeypatch)
    run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref)
    assert started == []
    with pytest.raises(WorkerStarted):  # the same entry for another test: judged in isolation again
        run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref + "::another")
    with pytest.raises(WorkerStarted):  # or under stricter settings
        run_problem_spec(spec, dataclasses.replace(settings, seeds=3), backend, name="softmax", problem_id=spec.ref)


def test_an_optimize_run_with_everything_cached_starts_no_worker(tmp_path, backend, monkeypatch):
    spec, name = _softmax_entry(tmp_path, backend)
    # what a first verify run on this machine leaves behind: each entry judged in isolation and recorded
    run_problem_spec(spec, Settings(mode="verify", seeds=2, cache_dir=str(tmp_path / "kc")), backend, name="softmax",
                     problem_id=spec.ref)
    started = _no_worker(monkeypatch)
    settings = Settings(mode="optimize", seeds=2, cache_dir=str(tmp_path / "kc"), proposer="tuner")
    lines: list[str] = []
    record = run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref, progress=lines.append)
    assert started == []
    assert record.mode == "optimize" and record.proposer == "tuner"
    assert [(k.kernel, k.decision, k.source) for k in record.kernels] == [(name, "cached", "cache")]
    assert record.regressions == [] and record.uncached == []
    assert record.outcome is not None and "nothing to search" in record.outcome.note
    assert [(k.kernel, k.decision) for k in record.outcome.kernels] == [(name, "skipped")]
    assert any("re-verifying cached kernel" in ln for ln in lines)


def test_an_optimize_run_with_an_uncached_kernel_searches_in_a_worker(tmp_path, backend, monkeypatch):
    spec, _ = _softmax_entry(tmp_path, backend)
    started = _no_worker(monkeypatch)
    settings = Settings(mode="optimize", seeds=2, cache_dir=str(tmp_path / "empty"), proposer="tuner")
    lines: list[str] = []
    with pytest.raises(WorkerStarted):
        run_problem_spec(spec, settings, backend, name="softmax", problem_id=spec.ref, progress=lines.append)
    assert started == ["softmax_problem"]
    assert any("1 kernel(s) with no cache entry; searching them in a worker process" in ln for ln in lines)


def _kept_run(tmp_path, backend, **searched):
    """ReverseCumsum with a kept-baseline entry for its second kernel, recorded as searched under ``searched``
    (nothing given: an entry written before the conditions were recorded)."""
    x = torch.randn(4, 64, device=backend.device)
    settings = Settings(seeds=2, cache_dir=str(tmp_path / "kc"))
    ev = LocalEvaluator(EvaluationSession(problem_from_objects(ReverseCumsum(), (x,), "rcs"), settings, backend))
    g = ev.graphs[0]
    (run,) = g.contiguous_runs()
    entry = KernelCache(tmp_path / "kc").store_baseline_kept(
        cache_key(g, (run[1],), ev.inputs, device_key(backend)), [g.kernels[run[1]]], problem_id="rcs",
        reason="scripted", searched=searched or None)
    return ev, settings, run, entry


_NOW = {"proposer": "tuner", "model": None, "search_space": SEARCH_SPACE}


@pytest.mark.parametrize("searched, min_speedup, proposer, searched_again", [
    ({}, 1.02, "tuner", True),                       # an old entry: a tuner that searched less (space 1)
    ({}, 1.02, "agents", True),                      # the tuner kept it: the agents have not tried
    ({**_NOW, "min_speedup": 1.02}, 1.02, "tuner", False),
    ({**_NOW, "min_speedup": 1.02}, 1.005, "tuner", True),   # a lower bar: a real 1% win may now pass
    ({**_NOW, "min_speedup": 1.02}, 1.05, "tuner", False),   # a higher bar finds nothing the old search did not
    ({"proposer": "agents", "model": "m1", "min_speedup": 1.02}, 1.02, "tuner", True),
    ({**_NOW, "min_speedup": 1.005}, 1.005, "tuner", False),
    ({**_NOW, "min_speedup": 1.005}, 1.004, "tuner", True),
    ({**_NOW, "min_speedup": 1.02, "search_space": SEARCH_SPACE - 1}, 1.02, "tuner", True),
    ({**_NOW, "min_speedup": 1.02, "search_space": SEARCH_SPACE + 1}, 1.02, "tuner", False),  # a newer tuner's
])
def test_a_kept_decision_searched_under_other_conditions_is_searched_again(
        tmp_path, backend, searched, min_speedup, proposer, searched_again):
    """Session 19: on the H200 the tuner kept baselines where its best config measured 1.014x [1.009, 1.023]
    (below the 1.02 bar) and the decision was cached: a run with a lower `min_speedup`, or with the LLM agents,
    was served "no candidate beat this kernel" without searching."""
    from pytest_kernelopt.workflow import cache_precheck

    ev, settings, run, _ = _kept_run(tmp_path, backend, **searched)
    settings = dataclasses.replace(settings, mode="optimize", min_speedup=min_speedup)
    messages: list[str] = []
    record, left = cache_precheck(ev, settings, backend, proposer=proposer, name="rcs", problem_id="rcs",
                                  progress=messages.append)
    kept = [(k.kernel, k.decision) for k in record.kernels]
    if searched_again:
        assert kept == [] and run[1] in record.uncached, kept
        assert left == record.left_to_search(proposer) >= 2
        (msg,) = [m for m in messages if "searched again" in m]
        assert run[1] in msg and ("min_speedup" in msg or "proposer" in msg or "search space" in msg), msg
    else:
        assert kept == [(run[1], "baseline_kept")] and run[1] not in record.uncached
        assert not [m for m in messages if "searched again" in m]


def test_a_kept_decision_is_served_as_it_is_in_verify_mode_and_without_a_searching_proposer(tmp_path, backend):
    ev, settings, run, _ = _kept_run(tmp_path, backend)
    low = dataclasses.replace(settings, min_speedup=1.001)
    for s, proposer in ((low, "tuner"), (dataclasses.replace(low, mode="optimize"), "none")):
        record = run_kernelopt(ev, s, backend, name="rcs", problem_id="rcs", proposer=proposer)
        mine = [(k.decision, k.source, k.note) for k in record.kernels if k.kernel == run[1]]
        assert mine == [("baseline_kept", "cache", "cache: no candidate beat this kernel")], (proposer, mine)


def test_a_kept_entry_records_how_it_was_searched_and_a_malformed_record_reads_as_the_old_default(tmp_path, backend):
    import json

    from pytest_kernelopt.cache_entry import ENTRY_JSON, LEGACY_SEARCHED
    from pytest_kernelopt.workflow import search_conditions

    cond = search_conditions(Settings(min_speedup=1.005), "tuner")
    assert cond == {"proposer": "tuner", "model": None, "min_speedup": 1.005, "search_space": SEARCH_SPACE}
    _, _, _, entry = _kept_run(tmp_path, backend, **cond)
    assert entry.searched == cond
    assert json.loads((entry.path / ENTRY_JSON).read_text())["searched"] == cond
    for bad in ({"proposer": "tuner", "min_speedup": "1"}, {"proposer": 3, "min_speedup": 1.0},
                {"proposer": "tuner", "min_speedup": True}, {"proposer": "tuner", "min_speedup": -1.0}, []):
        entry.meta["searched"] = bad
        assert entry.searched == LEGACY_SEARCHED, bad
    for bad in ("2", True, 0, -1, 1.5, None):  # a malformed search space reads as the first (searched again)
        entry.meta["searched"] = {**cond, "search_space": bad}
        assert entry.searched == {**cond, "search_space": 1}, bad


def test_the_agents_with_another_model_search_a_kept_decision_again(tmp_path, backend, monkeypatch):
    from pytest_kernelopt.workflow import search_again

    _, settings, _, entry = _kept_run(tmp_path, backend, proposer="agents", model="m1", min_speedup=1.02)
    optimize = dataclasses.replace(settings, mode="optimize")
    assert search_again(entry, dataclasses.replace(optimize, model="m1"), "agents", True) is None
    why = search_again(entry, dataclasses.replace(optimize, model="m2"), "agents", True)
    assert why == "kept with model m1, this run's is m2"
    assert search_again(entry, dataclasses.replace(optimize, model="m2"), "agents", False) is None


def _accepted_at(cand: Candidate, bar: float, low: float) -> CascadeResult:
    perf = GateResult("performance", "pass", "recorded", {"speedup": low + 0.005, "ci_low": low,
                                                           "ci_high": low + 0.01, "measured": True,
                                                           "min_speedup": bar})
    return CascadeResult(cand.replaces, cand.content_hash, (GateResult("static", "pass"), perf), "accepted")


@pytest.mark.parametrize("bar, low, run_bar, retimed", [
    (1.005, 1.009, 1.02, True),    # accepted at a lower bar, below this run's: timed again at 1.02
    (1.005, 1.021, 1.02, False),   # accepted at a lower bar, but its lower bound clears this run's too
    (1.02, 1.03, 1.02, False),     # the same bar
    (1.02, 1.03, 1.005, False),    # a lower bar than the entry's: it clears it
])
def test_an_entry_accepted_at_a_lower_bar_is_timed_again_and_below_this_runs_bar_the_baseline_runs(
        tmp_path, backend, monkeypatch, bar, low, run_bar, retimed):
    """Session 19: a kernel accepted at `--min-speedup 1.005` (1.009x [1.009, 1.019]) was served, re-checked for
    correctness only, to runs at the default 1.02.  The CPU times nothing, so the GPU's performance gate is
    simulated here: a failing one where the entry is timed again."""
    import pytest_kernelopt.workflow.run as run_mod

    x = torch.randn(4, 32, device=backend.device)
    settings = Settings(seeds=2, cache_dir=str(tmp_path / "kc"), min_speedup=run_bar, isolate=False)

    class Softmax(torch.nn.Module):
        def forward(self, x):
            return torch.softmax(x * 0.5, dim=-1)

    ev = LocalEvaluator(EvaluationSession(problem_from_objects(Softmax(), (x,), "sm"), settings, backend))
    g = ev.graphs[0]
    (name,) = g.kernels
    gpu = "cuda:NVIDIA H200"
    cand = Candidate((name,), g.kernels[name].source, origin="tuner")
    entry = KernelCache(tmp_path / "kc").store_accepted(cache_key(g, (name,), ev.inputs, gpu), cand,
                                                        [g.kernels[name]], _accepted_at(cand, bar, low),
                                                        problem_id="sm")
    assert (entry.below_bar(run_bar) is not None) == retimed
    monkeypatch.setattr(run_mod, "device_key", lambda _b: gpu)
    asked: list[bool] = []
    real = ev.evaluate

    def evaluate(c, perf=False, **kw):
        stale = kw.get("seeds") is None  # a stale entry gets every seed; a fresh one the quick re-check
        asked.append(stale)
        res = real(c, perf=False, **kw)
        if not stale:
            return res
        n = {"speedup": 1.012, "ci_low": 1.008, "ci_high": 1.016, "measured": True, "min_speedup": run_bar}
        failed = GateResult("performance", "fail", f"speedup 1.012x below {run_bar:g}", n)
        return dataclasses.replace(res, gates=(*res.gates, failed), decision="rejected")

    monkeypatch.setattr(ev, "evaluate", evaluate)
    lines: list[str] = []
    record = run_kernelopt(ev, settings, backend, name="sm", problem_id="sm", progress=lines.append)
    assert record.regressions == [], "a kernel below this run's bar is not a regression: it is not applied"
    (k,) = record.kernels
    if retimed:
        assert asked == [True] and k.decision == "baseline_kept" and record.applied == [], (asked, k)
        assert "min_speedup 1.005" in k.note and "1.02" in k.note and "baseline runs" in k.note, k.note
        assert k.failed_gates == ["performance"] and k.ci == (1.008, 1.016)
        assert any("not applied" in ln for ln in lines), lines
    else:
        assert asked == [False] and k.decision == "cached" and record.applied == [cand], (asked, k)


def _on_h200(now):
    """This environment's torch and triton on an H200: another GPU of the same kind (keys say cuda:sm90)."""
    from pytest_kernelopt.cache_keys import Environment

    return Environment(now.torch, now.triton, "13.0", "NVIDIA H200", "9.0", "cuda:sm90")


@pytest.mark.parametrize("failing, searching", [("performance", False), ("performance", True),
                                                ("correctness", False)])
def test_an_entry_recorded_on_another_gpu_that_is_slower_here_is_not_applied_and_is_searched_again(
        tmp_path, backend, monkeypatch, failing, searching):
    """Session 24 on an H100: loss_kl_div's entry, accepted on the H200, measured 0.971x there, and the run
    failed the problem ("cached kernel ... performance gate failed") instead of running the baseline and
    searching the kernel for this GPU.  A stale entry that is wrong here is still a regression."""
    import pytest_kernelopt.workflow.run as run_mod
    from pytest_kernelopt.cache_keys import current_environment
    from pytest_kernelopt.workflow import cache_precheck

    x = torch.randn(4, 32, device=backend.device)
    settings = Settings(seeds=2, cache_dir=str(tmp_path / "kc"), isolate=False)

    class Softmax(torch.nn.Module):
        def forward(self, x):
            return torch.softmax(x * 0.5, dim=-1)

    ev = LocalEvaluator(EvaluationSession(problem_from_objects(Softmax(), (x,), "sm"), settings, backend))
    g = ev.graphs[0]
    (name,) = g.kernels
    gpu = "cuda:sm90"
    cand = Candidate((name,), g.kernels[name].source, origin="tuner")
    now = current_environment()
    h200 = _on_h200(now)
    entry = KernelCache(tmp_path / "kc").store_accepted(cache_key(g, (name,), ev.inputs, gpu), cand,
                                                        [g.kernels[name]], _accepted_at(cand, 1.02, 1.05),
                                                        problem_id="sm", environment=h200)
    assert entry.stale_reasons(now) and entry.below_bar(1.02) is None
    monkeypatch.setattr(run_mod, "device_key", lambda _b: gpu)
    real = ev.evaluate

    def evaluate(c, perf=False, **kw):
        assert kw.get("seeds") is None, "a stale entry gets the full cascade"
        res = real(c, perf=False, **kw)
        n = {"speedup": 0.971, "ci_low": 0.969, "ci_high": 0.976, "measured": True, "min_speedup": 1.02}
        failed = GateResult(failing, "fail", f"{failing} failed here", n if failing == "performance" else {})
        return dataclasses.replace(res, gates=(*res.gates, failed), decision="rejected")

    monkeypatch.setattr(ev, "evaluate", evaluate)
    lines: list[str] = []
    if searching:
        record, left = cache_precheck(ev, dataclasses.replace(settings, mode="optimize"), backend,
                                      proposer="tuner", name="sm", problem_id="sm", progress=lines.append)
        assert record.regressions == [] and record.kernels == [] and name in record.uncached and left >= 1
        assert any("recorded on another environment" in ln and "searched again" in ln for ln in lines), lines
        return
    record = run_kernelopt(ev, settings, backend, name="sm", problem_id="sm", progress=lines.append)
    (k,) = record.kernels
    assert record.applied == []
    if failing == "correctness":
        assert k.decision == "regression" and record.regressions and "correctness" in k.note, k
        return
    assert record.regressions == [] and k.decision == "baseline_kept", k
    assert "recorded on another environment" in k.note and "NVIDIA H200" in k.note and "baseline runs" in k.note
    assert k.failed_gates == ["performance"] and k.ci == (0.969, 0.976)


def test_a_kept_decision_taken_on_another_gpu_is_searched_again_by_an_optimize_run(tmp_path, backend):
    """Keys name the GPU's kind (cuda:sm90): an H100 is served the H200's decisions.  A config that lost on one
    card may win on the other (session 24: max-autotune's picks differ between them), so an optimize run
    searches a decision kept on another environment again; a verify run serves it."""
    from pytest_kernelopt.cache_keys import current_environment
    from pytest_kernelopt.workflow import search_again

    _, settings, _, entry = _kept_run(tmp_path, backend, proposer="tuner", model=None, min_speedup=1.02,
                                      search_space=SEARCH_SPACE)
    now = current_environment()
    optimize = dataclasses.replace(settings, mode="optimize")
    assert search_again(entry, optimize, "tuner", True, now) is None  # kept here: served
    entry.meta["environment"] = _on_h200(now).to_json()
    why = search_again(entry, optimize, "tuner", True, now)
    assert why is not None and why.startswith("kept on another environment") and "NVIDIA H200" in why, why
    assert search_again(entry, optimize, "tuner", False, now) is None  # a verify run serves it as it is
