"""The optimizer's decisions with a scripted evaluator (the GPU path's logic, checked without a GPU)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.capture import capture  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.results import CascadeResult, GateResult  # noqa: E402
from pytest_kernelopt.optimize import Optimizer  # noqa: E402
from pytest_kernelopt.workflow import choose_proposer  # noqa: E402
from pytest_kernelopt.profile import KernelProfile, ModuleProfile  # noqa: E402


class ScriptedEvaluator:
    """Times and verdicts come from a script; the graphs are a real capture."""

    measures_time = True
    backend_name = "cuda"

    def __init__(self, graphs, times, speedups, joint_ok=True):
        self.graphs, self.times, self.speedups, self.joint_ok = graphs, times, speedups, joint_ok
        self.evaluated = []
        self.profiled = 0
        self.ncu_asked: list[bool] = []

    def profile(self, ncu=True):
        self.profiled += 1
        self.ncu_asked.append(ncu)
        ks = tuple(KernelProfile(n, g.index, g.kernels[n].kind, 1000, 10.0) for g in self.graphs for n in g.kernels)
        return ModuleProfile("cuda", True, 100.0, ks)

    def rank(self, cands):
        return self.times(cands)

    def evaluate(self, cand, perf=True, seeds=None, aot=True):
        if isinstance(cand, list):
            decision = "accepted" if self.joint_ok else "rejected"
            gate = GateResult("performance", "pass" if self.joint_ok else "fail", "joint", {"speedup": 1.1})
            return CascadeResult(tuple(n for c in cand for n in c.replaces), "joint", (gate,), decision, "joint")
        self.evaluated.append(cand)
        spd = self.speedups(cand)
        ok = spd >= 1.05
        gate = GateResult("performance", "pass" if ok else "fail", "scripted",
                          {"speedup": spd, "ci_low": spd - 0.02, "ci_high": spd + 0.02, "measured": True})
        return CascadeResult(cand.replaces, cand.content_hash, (gate,), "accepted" if ok else "rejected", cand.origin)


@pytest.fixture(scope="module")
def captured(backend):
    x = torch.randn(4, 64, device=backend.device)
    return capture(lambda t: torch.cumsum(t.flip(1), 1).flip(1), (x,), backend=backend)


@pytest.fixture(scope="module")
def graphs(captured):
    return captured.graphs


def test_only_configs_that_clear_the_bar_are_gated_and_the_fastest_accepted_wins(graphs):
    screened: dict[str, float] = {}

    def times(cands):  # baseline 1.0 ms; candidate i takes 1.0 - 0.01 * i ms
        ts = [1.0 - 0.01 * i for i in range(len(cands))]
        screened.update({c.content_hash: t for c, t in zip(cands, ts)})
        return 1.0, ts

    ev = ScriptedEvaluator(graphs, times, lambda c: 1.0 / screened[c.content_hash])
    out = Optimizer(ev, Settings(min_speedup=1.05, proposer="tuner"), proposer="tuner").run()
    assert out.proposer == "tuner" and ev.evaluated, "some candidates clear the bar and are gated"
    # gated: only screened times below 1.0 / 1.05 ms, at most the three fastest per kernel
    assert all(screened[c.content_hash] < 1.0 / 1.05 for c in ev.evaluated)
    tuned = [k for k in out.kernels if k.tried]
    assert tuned and all(len(k.tried) <= 3 for k in tuned)
    for k in tuned:
        assert k.proposer == "tuner" and k.decision == "accepted"
        assert k.result.speedup == max(r.speedup for r in k.tried)  # the fastest gated winner is kept


def test_nothing_faster_keeps_the_baseline_and_says_why(graphs):
    ev = ScriptedEvaluator(graphs, lambda cands: (1.0, [1.0] * len(cands)), lambda c: 1.0)
    out = Optimizer(ev, Settings(proposer="tuner"), proposer="tuner").run()
    assert {k.decision for k in out.kernels} <= {"baseline_kept"} and ev.evaluated == []
    assert all("0 at least 1.02x faster" in k.note for k in out.kernels if "screened" in k.note)
    assert out.speedup == 1.0


def test_a_kept_kernel_reports_the_candidate_that_came_nearest(graphs):
    """Every gated config lost on the performance gate: the record shows the fastest of them, with its interval
    against min_speedup, rather than empty numbers."""
    from pytest_kernelopt.records import outcome_record

    screened: dict[str, float] = {}

    def times(cands):  # all screen faster than the bar; the gate then measures 1.000x-1.016x (it passes 1.05)
        ts = [0.9 - 0.001 * i for i in range(len(cands))]
        screened.update({c.content_hash: t for c, t in zip(cands, ts)})
        return 1.0, ts

    ev = ScriptedEvaluator(graphs, times, lambda c: 1.0 + (0.9 - screened[c.content_hash]) * 2)
    out = Optimizer(ev, Settings(min_speedup=1.05, proposer="tuner"), proposer="tuner").run()
    kept = [k for k in out.kernels if k.tried]
    assert kept and all(k.decision == "baseline_kept" for k in kept)
    for k in kept:
        rec = outcome_record(k)
        best = max(r.speedup for r in k.tried)
        assert rec.decision == "baseline_kept" and rec.source == "baseline" and rec.speedup is None
        assert rec.numbers["performance"]["speedup"] == best and rec.failed_gates == ["performance"]
        assert "nearest candidate: performance: scripted" in rec.note and "screened" in rec.note
    # an accepted kernel carries its winner's numbers
    ev = ScriptedEvaluator(graphs, lambda cands: (1.0, [0.5] * len(cands)), lambda c: 1.2)
    acc = [k for k in Optimizer(ev, Settings(proposer="tuner"), proposer="tuner").run().kernels if k.decision == "accepted"]
    assert acc and all(outcome_record(k).numbers["performance"]["speedup"] == 1.2 for k in acc)
    assert all("nearest" not in outcome_record(k).note for k in acc)


def test_a_failed_screening_keeps_the_baseline(graphs):
    ev = ScriptedEvaluator(graphs, lambda cands: (None, [None] * len(cands)), lambda c: 2.0)
    out = Optimizer(ev, Settings(proposer="tuner"), proposer="tuner").run()
    assert all(k.decision == "baseline_kept" for k in out.kernels)
    assert any("screening could not time" in k.note for k in out.kernels)


def test_winners_that_fail_together_keep_only_the_best(graphs):
    if sum(len(g.kernels) for g in graphs) < 2:
        pytest.skip("needs two kernels")
    ev = ScriptedEvaluator(graphs, lambda cands: (1.0, [0.5] * len(cands)), lambda c: 1.2, joint_ok=False)
    out = Optimizer(ev, Settings(proposer="tuner"), proposer="tuner").run()
    accepted = [k for k in out.kernels if k.decision == "accepted"]
    assert out.joint is not None and not out.joint.accepted
    assert len(accepted) == 1
    assert any("the combination with other winners failed" in k.note for k in out.kernels)


def test_nothing_to_search_costs_no_profile(graphs):
    """The profile runs a child process under ncu and timed calls: a module whose kernels are all in the cache
    skips it, and the outcome says why nothing was searched."""
    ev = ScriptedEvaluator(graphs, lambda cands: (1.0, [0.5] * len(cands)), lambda c: 1.2)
    out = Optimizer(ev, Settings(proposer="tuner"), proposer="tuner").run(skip=lambda g, name: "in the cache")
    assert ev.profiled == 0 and ev.evaluated == []
    assert out.profile is None and "nothing to search" in out.note
    assert {k.decision for k in out.kernels} == {"skipped"}
    first = next(n for g in graphs for n in g.kernels)
    out = Optimizer(ev, Settings(proposer="tuner"), proposer="tuner").run(skip=lambda g, name: None if name == first else "cached")
    assert ev.profiled == 1 and "nothing to search" not in out.note
    assert [k.kernel for k in out.kernels if k.decision != "skipped"] == [first]
    assert ev.ncu_asked == [False]  # Nsight Compute's metrics are for the agents: the tuner never reads them
    searched = next(k for k in out.kernels if k.decision != "skipped")
    assert set(searched.phases) == {"autotune_picks", "looped_variants", "screening", "gates"}, searched.phases  # no workers
    assert all(v >= 0 for v in searched.phases.values()) and out.profile_s >= 0


def test_a_screened_search_that_lost_is_recorded_in_the_cache(graphs, tmp_path):
    """Screening found no config near the bar, so nothing was gated: still a search, recorded as the baseline
    kept, so the next optimize run does not screen the same kernel again."""
    from types import SimpleNamespace

    from pytest_kernelopt.cache import KernelCache
    from pytest_kernelopt.workflow.store import store_decisions

    ev = ScriptedEvaluator(graphs, lambda cands: (1.0, [1.0] * len(cands)), lambda c: 1.0)
    out = Optimizer(ev, Settings(proposer="tuner"), proposer="tuner").run()
    screened = [k for k in out.kernels if k.screened]
    assert screened and all(k.tried == [] and k.decision == "baseline_kept" for k in screened)
    cache = KernelCache(tmp_path / "kc")
    inputs = [SimpleNamespace(shape=(4, 64), dtype="torch.float32")]
    written = store_decisions(cache, graphs, inputs, out, "cuda:sm90", "p")
    assert written == {(k.graph, k.kernel) for k in screened}
    entries = cache.scan()
    assert len(entries) == len(screened) and all(e.entry.is_baseline_kept for e in entries)
    assert all("0 at least 1.02x faster" in e.entry.meta["reason"] for e in entries)


def test_proposer_choice(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KERNELOPT_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(var, raising=False)
    assert choose_proposer(Settings()) == "tuner"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert choose_proposer(Settings()) == "tuner", "an endpoint without a model is not enough"
    monkeypatch.setenv("KERNELOPT_MODEL", "m")
    from pytest_kernelopt.extras import available

    # with an endpoint and a model: the agents, where openai is installed (it is not on every machine)
    assert choose_proposer(Settings()) == ("agents" if available("openai") else "tuner")
    assert choose_proposer(Settings(proposer="none")) == "none"


def test_timed_sample_of_a_training_module_runs_the_backward_kernels(backend):
    """The performance gate times forward and backward for training, so backward candidates really run."""
    from types import SimpleNamespace

    from pytest_kernelopt.gates.timing import module_call

    module = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.GELU()).to(backend.device)
    x = torch.randn(4, 16, device=backend.device, requires_grad=True)
    cap = capture(module, (x,), training=True, backend=backend)
    backward = next(g for g in cap.graphs if g.role == "backward")
    launched = []
    ns = cap.namespaces[backward.index]
    name = next(iter(backward.kernels))
    real = ns[name]

    class Spy:
        def run(self, *a, **k):
            launched.append(name)
            return real.run(*a, **k)

    ns[name] = Spy()
    try:
        for training, expected in ((False, 0), (True, 1)):
            launched.clear()
            session = SimpleNamespace(captured=cap, training=training)
            module_call(session, [(x,)])(0)
            assert len(launched) == expected, (training, launched)
    finally:
        ns[name] = real


def test_screening_times_the_baseline_through_the_same_swap_as_the_configs(captured, graphs):
    """The unswapped module screened slower than a swapped copy of itself on the H200: the screening's
    reference is the baseline kernel's own source, swapped in like the configs are."""
    import dataclasses
    from types import SimpleNamespace

    from pytest_kernelopt.gates.timing import screening_reference
    from pytest_kernelopt.tuner import propose_configs

    session = SimpleNamespace(captured=captured)
    g = graphs[0]
    names = list(g.kernels)
    cands = propose_configs(g, names[0], limit=4)
    ref = screening_reference(session, cands)
    trace = next(t for t in g.traces if t.kernel == names[0])
    assert ref is not None and ref.replaces == (names[0],)
    assert ref.source == g.kernels[names[0]].source and ref.origin == "a/a"
    # launched with the config the baseline ran, not the decorator's first (avgpool3d on the H200: 17x apart)
    assert len(ref.configs) == 1 and ref.configs[0] == {**trace.config, "num_warps": trace.num_warps or 4,
                                                         "num_stages": trace.num_stages or 1}
    other = dataclasses.replace(cands[0], replaces=("triton_poi_other_9",))
    assert screening_reference(session, [*cands, other]) is None  # different kernels: no common reference
    assert screening_reference(session, [other]) is None  # a kernel the capture does not have
    assert screening_reference(session, []) is None


def test_the_note_says_when_max_autotunes_picks_are_not_known(graphs):
    """The scripted evaluator has no problem spec: no second compile, and the kernel's note says so."""
    ev = ScriptedEvaluator(graphs, lambda cands: (1.0, [1.0] * len(cands)), lambda c: 1.0)
    out = Optimizer(ev, Settings(proposer="tuner"), proposer="tuner").run()
    tuned = [k for k in out.kernels if k.screened]
    assert tuned and all("max-autotune's picks not known (the module has no spec" in k.note for k in tuned)


def test_the_screening_times_primed_and_rotating(captured, graphs, backend, monkeypatch):
    """With many configs the screening's plain ABBA kept the reference first and the configs in the middle;
    it now primes every sample with its own variant and rotates the order (the calls, not the clock, checked:
    the CPU has no CUDA timer)."""
    from types import SimpleNamespace

    import pytest_kernelopt.gates.timing as timing
    from pytest_kernelopt.tuner import propose_configs

    seen = {}

    def stand_in(variants, n_inputs, samples, warmup, **kw):
        seen.update(kw, n=len(variants), n_inputs=n_inputs)
        return [[1.0] * samples for _ in variants]

    monkeypatch.setattr(timing, "time_interleaved", stand_in)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    g = graphs[0]
    cands = propose_configs(g, list(g.kernels)[0], limit=4)
    x = torch.randn(4, 64, device=backend.device)
    session = SimpleNamespace(captured=captured, training=False, inputs=lambda seed: (x,))
    base, times = timing.rank_candidates(session, cands, 4)
    assert seen["prime"] is True and seen["rotate"] is True and seen["n_inputs"] == 3
    assert seen["n"] == 1 + len([t for t in times if t is not None]) and base == 1.0


def test_the_proposer_reason_says_why_auto_chose_the_tuner(monkeypatch):
    """New-user review: with an endpoint set but no model, ``auto`` silently ran the tuner."""
    pytest.importorskip("openai")
    from pytest_kernelopt.config import Settings
    from pytest_kernelopt.workflow import choose_proposer, proposer_reason

    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KERNELOPT_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(var, raising=False)
    s = Settings()
    assert choose_proposer(s) == "tuner" and proposer_reason(s).startswith("no LLM endpoint configured")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert choose_proposer(s) == "tuner" and "no model" in proposer_reason(s)
    monkeypatch.setenv("KERNELOPT_MODEL", "m1")
    assert choose_proposer(s) == "agents" and proposer_reason(s) == "the LLM agents run, model m1"
    assert proposer_reason(Settings(proposer="tuner")) == ""
