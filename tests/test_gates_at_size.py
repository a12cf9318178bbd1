"""The gates at real size (issue 13), on the CPU path at small size.

* the float64 gate's noise floor: Conv3d -> GroupNorm -> mean over everything is
  rounding noise around zero; every launch configuration the tuner proposes
  for its reduction kernels (the same arithmetic in another order) passes,
  while the same kernel with its loads rounded to float16 still fails;
* "float64 check skipped": with a memory cap below what the float64 truth
  needs, a candidate within tolerance passes and says the check was skipped,
  one beyond tolerance is refused as unverifiable, not as wrong;
* the inputs after a call are compared as digests (a multi-GiB input costs a
  hash in the records, not a copy), and a mutation is still seen;
* the sequential performance gate's arithmetic: another round while the
  interval straddles the bar, none once it is decided or at the cap.
"""

from __future__ import annotations

import re
import time

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.backends import select_backend  # noqa: E402
from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.perf import merge_timing, next_round  # noqa: E402
from pytest_kernelopt.gates.digests import digest  # noqa: E402
from pytest_kernelopt.gates.trial_records import CandidateRecord  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402
from pytest_kernelopt.tuner import propose_configs  # noqa: E402

ON_CPU = select_backend("auto").name == "cpu"


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Overrides the suite's per-test Dynamo reset, which would make the module's shared session stale."""
    yield


class NoiseMean(torch.nn.Module):
    """The mean of group-normalised values: zero up to rounding, whatever the input."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv3d(3, 8, 3)
        self.norm = torch.nn.GroupNorm(4, 8)

    def forward(self, x):
        return self.norm(self.conv(x)).mean()


def _noise_session(backend, **settings) -> EvaluationSession:
    torch.manual_seed(0)
    device = backend.device
    module = NoiseMean().to(device).eval()
    x = torch.randn(2, 3, 6, 10, 10, device=device)
    problem = problem_from_objects(module, (x,), name="noise_mean")
    return EvaluationSession(problem, Settings(seeds=3, base_seed=7, **settings), backend)


@pytest.fixture(scope="module")
def noise(backend):
    return _noise_session(backend)


def _reductions(session):
    return [(g, n) for g, n in session.captured.triton_kernels if "red" in n or "per" in n]


def test_the_noise_floor_problem_really_is_rounding_noise(noise):
    base = noise.baseline_record()
    # a seed whose calls start from the module as built (the first seed's varied GroupNorm bias moves the mean)
    seed = next(sd for sd in base.plan.seeds if not base.plan.varied_state(sd))
    truth = base.truths[seed]
    assert truth is not None and truth.noise and truth.noise[0] > 0
    value = float(truth.outputs.abs())
    assert value < 1e-5, f"the output should be ~0 (mean of normalised values), got {value}"


def test_every_tuner_config_of_the_noise_floor_problem_passes_the_float64_gate(noise):
    kernels = _reductions(noise)
    assert kernels, "expected a reduction kernel in Conv3d -> GroupNorm -> mean"
    judged = 0
    for graph, name in kernels:
        for cand in propose_configs(graph, name, 4):
            res = noise.evaluate(cand, perf=False)
            fp64 = res.gate("fp64")
            assert res.decision == "verified", f"{name} {cand.launch}: {res.reason}"
            assert fp64 is not None and fp64.passed
            judged += 1
    assert judged >= 2


def _fp16_rounded(session) -> Candidate:
    """The first reduction kernel with every floating load rounded through float16."""
    graph, name = _reductions(session)[0]
    src = graph.kernels[name].source
    rounded, n = re.subn(r"(tl\.load\([^\n]*?\))(\.to\(tl\.float32\))?(\s*$)",
                         r"\1.to(tl.float16).to(tl.float32)\3", src, flags=re.M)
    assert n >= 1
    return Candidate((name,), rounded, origin="test")


def test_an_fp16_rounded_reduction_still_fails_on_the_noise_floor_problem(noise):
    res = noise.evaluate(_fp16_rounded(noise), perf=False)
    assert res.decision == "rejected"
    failed = res.failed_gate.gate
    assert failed in ("correctness", "fp64"), res.reason
    if failed == "fp64":
        assert "farther from the float64 truth" in res.reason


def test_a_memory_cap_skips_the_float64_check_and_says_so(backend):
    session = _noise_session(backend, fp64_max_gib=1e-6)
    base = session.baseline_record()
    assert base.truth_memory["where"] == "skipped"
    (graph, name), *_ = _reductions(session)
    own = Candidate((name,), graph.kernels[name].source, origin="test")
    res = session.evaluate(own, perf=False)
    fp64 = res.gate("fp64")
    assert res.decision == "verified" and fp64.passed
    assert "float64 check skipped: would need about" in fp64.reason
    assert fp64.numbers["fp64_skipped"].startswith("float64 check skipped")
    # a candidate beyond tolerance cannot be verified without the truth: refused, and the reason says why
    wrong = session.evaluate(_fp16_rounded(session), perf=False)
    assert wrong.decision == "rejected"
    if wrong.failed_gate.gate == "fp64":
        assert "could not be verified against a float64 truth" in wrong.reason
        assert "float64 check skipped" in wrong.reason


def test_inputs_after_a_call_are_digests_and_a_mutation_is_seen():
    x = torch.randn(1000)
    same = digest((x.clone(), 3))
    assert same == digest((x.clone(), 3)) and same[1] == 3 and same[0].startswith("tensor:")
    y = x.clone()
    y[500] += 1
    assert digest((y, 3)) != same
    # NaN payloads are made canonical, so only a change of value counts
    n1 = torch.tensor([float("nan"), 1.0])
    n2 = n1.view(torch.int32).clone()
    n2[0] = n2[0] | 1
    assert digest(n1) == digest(n2.view(torch.float32))
    # a different dtype, shape or layout is a different digest
    assert digest(x.view(10, 100)) != digest(x) and digest(x.double()) != digest(x)
    assert digest(x.view(10, 100).t()) != digest(x.view(10, 100).t().contiguous())


def _rec(base, cand):
    return CandidateRecord(timing={"base": base, "cand": cand, "launches": len(cand)})


def _ms(median: float, n: int, seed: int, spread: float = 0.02) -> list[float]:
    g = torch.Generator().manual_seed(seed)
    return (median * (1 + spread * torch.randn(n, generator=g))).tolist()


def test_the_sequential_gate_samples_again_only_while_undecided():
    s = Settings(perf_samples=30, perf_max_samples=120, min_speedup=1.02)
    clear = _rec(_ms(1.30, 30, 1), _ms(1.0, 30, 2))  # 1.3x: decided at the first look
    assert not next_round(s, clear)
    none = _rec(_ms(1.0, 30, 3), _ms(1.0, 30, 4))  # A/A: the interval sits below 1.02 or straddles it
    near = _rec(_ms(1.03, 30, 5, 0.05), _ms(1.0, 30, 6, 0.05))  # 3% with 5% noise: straddles at 30 pairs
    assert next_round(s, near)
    for _ in range(3):
        merge_timing(near, {"base": _ms(1.03, 30, 7 + _, 0.05), "cand": _ms(1.0, 30, 17 + _, 0.05),
                            "launches": 30}, {"sums": {}, "last": {}})
    assert len(near.timing["base"]) == 120 and near.timing["rounds"] == 4
    assert not next_round(s, near), "at perf_max_samples the gate decides"
    assert not next_round(Settings(perf_samples=30, perf_max_samples=30), none), "no second look when capped"


def test_each_look_spends_part_of_the_error_rate():
    from pytest_kernelopt.gates.perf import look_confidence, looks

    from pytest_kernelopt.gates.perf import schedule

    s = Settings(perf_samples=30, perf_max_samples=120, confidence=0.95)
    assert schedule(s) == [30, 60, 120] and looks(s) == 3 and abs(look_confidence(s) - (1 - 0.05 / 3)) < 1e-12
    assert schedule(Settings(perf_samples=30, perf_max_samples=960)) == [30, 60, 120, 240, 480, 960]
    assert schedule(Settings(perf_samples=30, perf_max_samples=100)) == [30, 60, 100], "the last look at the cap"
    assert look_confidence(Settings(perf_samples=30, perf_max_samples=30)) == 0.95


def test_the_sequential_gate_doubles_its_pairs_and_stops_at_its_time_cap():
    s = Settings(perf_samples=30, perf_max_samples=960, perf_max_seconds=10.0, min_speedup=1.02)
    near = _rec(_ms(1.03, 30, 5, 0.05), _ms(1.0, 30, 6, 0.05))
    near.timing["seconds"] = 1.0
    assert next_round(s, near) == 30, "the second look is at 60 pairs"
    merge_timing(near, {"base": _ms(1.03, 30, 7, 0.05), "cand": _ms(1.0, 30, 8, 0.05), "launches": 30,
                        "seconds": 1.0}, {"sums": {}, "last": {}})
    assert near.timing["seconds"] == 2.0
    if next_round(s, near):  # still straddling at 60 pairs: the third look is at 120
        assert next_round(s, near) == 60
    slow = _rec(_ms(1.03, 30, 5, 0.05), _ms(1.0, 30, 6, 0.05))
    slow.timing["seconds"] = 6.0  # another 30 pairs at this pace would pass 10 s
    assert next_round(s, slow) == 0, "the time cap ends the sampling"


def test_the_sequential_gate_gives_up_below_three_quarters_from_30_pairs():
    """A median below 1 + 0.75 (min_speedup - 1) after 30 pairs stops the sampling (a rejection: it never
    accepts); before 30 pairs, or above the bar, the gate goes on while the interval straddles."""
    from pytest_kernelopt.gates.perf import futile, futility_bar, speedup_interval

    s = Settings(perf_samples=15, perf_max_samples=960, min_speedup=1.02)
    assert futility_bar(s) == pytest.approx(1.015)
    # pair ratios spread symmetrically (+-8%) around 1.008: below the bar, and too noisy for the interval
    spread = [1.008 * (1 + 0.08 * (2 * ((7 * i) % 30) / 29 - 1)) for i in range(30)]
    aa = _rec(spread[:15], [1.0] * 15)
    point15, lo15, hi15 = speedup_interval(aa.timing["base"], aa.timing["cand"], 0.99)
    assert lo15 < 1.02 <= hi15
    assert next_round(s, aa) == 15, f"under 30 pairs the gate looks again (median {point15:.4f})"
    merge_timing(aa, {"base": spread[15:], "cand": [1.0] * 15, "launches": 15}, {"sums": {}, "last": {}})
    point, lo, hi = speedup_interval(aa.timing["base"], aa.timing["cand"], 0.99)
    assert lo < 1.02 <= hi and 1.0 < point < 1.015, (point, lo, hi)  # undecided by the interval, below the bar
    assert futile(s, 30, point) and next_round(s, aa) == 0
    win = _rec(_ms(1.05, 30, 35, 0.08), _ms(1.0, 30, 36, 0.08))
    p2, lo2, hi2 = speedup_interval(win.timing["base"], win.timing["cand"], 0.99)
    assert p2 > 1.015 and not futile(s, 30, p2)
    assert next_round(s, win) == (30 if lo2 < 1.02 <= hi2 else 0)
    assert not futile(s, 29, 0.5), "never before 30 pairs"


@pytest.mark.skipif(not ON_CPU, reason="the CPU path: the baseline's memory is measured on a GPU")
def test_a_cpu_run_reports_where_the_float64_truth_ran(backend):
    noise = _noise_session(backend)
    (graph, name), *_ = _reductions(noise)
    res = noise.evaluate(Candidate((name,), graph.kernels[name].source, origin="test"), perf=False)
    assert res.gate("fp64") is not None, res.reason
    assert res.gate("fp64").numbers.get("fp64_ran_on") == "cpu"


class TinyScale(torch.nn.Module):
    """A real signal of magnitude 1e-7: below the fp32 atol, so only the tiny-output rule and the float64
    gate can tell it from zero."""

    def forward(self, x):
        return torch.sigmoid(x) * 1e-7


def test_zeros_for_a_real_tiny_output_are_turned_away_by_the_float64_gate(backend):
    torch.manual_seed(0)
    x = torch.randn(64, 64, device=backend.device)
    problem = problem_from_objects(TinyScale().to(backend.device), (x,), name="tiny_scale")
    session = EvaluationSession(problem, Settings(seeds=3, base_seed=3), backend)
    (graph, name), = session.captured.triton_kernels
    src = graph.kernels[name].source
    zeroed, n = re.subn(r"tl\.store\((out_ptr0 \+ \([^)]*\)), (tmp\d+)", r"tl.store(\1, \2 * 0.0", src)
    assert n == 1
    res = session.evaluate(Candidate((name,), zeroed, origin="test"), perf=False)
    assert res.decision == "rejected" and res.failed_gate.gate == "fp64", res.reason
    assert "farther from the float64 truth" in res.reason
    own = session.evaluate(Candidate((name,), src, origin="test"), perf=False)
    assert own.decision == "verified", own.reason


def test_the_isolated_judge_judges_every_seed_in_rounds_its_memory_budget_allows(monkeypatch, tmp_path):
    """With a budget below the plan's records the judge judges every seed in rounds, each in a worker of its own
    that records the round's float64 truths and baseline before it loads the candidate (the first round's too: the
    judge keeps no truth between candidates, where a round's records need the room): an honest
    free-form candidate is verified on all five seeds; one wrong only on the special-values seed (the fifth: the
    third round) is rejected there."""
    import re

    from pytest_kernelopt import isolate
    from pytest_kernelopt.isolate import IsolatedEvaluator
    from pytest_kernelopt.problems import ProblemSpec

    from_rounds: list[int] = []  # the seeds whose truth a round's worker sent
    asked_clean: list[list[int]] = []  # the seeds whose truth the clean worker was asked for
    truths_of = IsolatedEvaluator._truths_of
    monkeypatch.setattr(IsolatedEvaluator, "_truths_of",
                        lambda ev, seeds, got, errors: (asked_clean.append(list(seeds)),
                                                        truths_of(ev, seeds, got, errors))[1])
    on_truth = isolate._Trial.on_truth
    monkeypatch.setitem(isolate._Trial.HANDLERS, isolate.TRUTH,
                        lambda trial, v: (from_rounds.append(v["seed"]), on_truth(trial, v))[1])

    problem = tmp_path / "affine.py"
    problem.write_text(
        "import torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
        "        return x * 2.0 + 1.0\n\n\ndef get_inputs():\n    return [torch.randn(64, 512)]\n\n\n"
        "def get_init_inputs():\n    return []\n")
    per_seed_gib = 64 * 512 * (8 + 1 + 2 * 4) / 2**30  # a float64 truth with its levels, two float32 runs
    per_set_gib = 64 * 512 * 8 / 2**30  # a baseline run and a candidate output on a timing input set
    monkeypatch.setenv("KERNELOPT_RECORD_BUDGET_GB", str(2.5 * per_seed_gib + 2 * per_set_gib))
    with IsolatedEvaluator(ProblemSpec.from_file(problem), Settings(seeds=5, base_seed=11)) as ev:
        (graph,) = ev.graphs
        name, kernel = next(iter(graph.kernels.items()))
        store = re.search(r"    tl\.store\(out_ptr0 \+ \((\w+)\), (\w+), (\w+)\)", kernel.source)
        assert store is not None, kernel.source
        index, value, mask = store.groups()
        # NaN inputs give 0 instead of NaN: invisible on every seed without NaN inputs
        bad = kernel.source.replace(
            store.group(0), f"    tl.store(out_ptr0 + ({index}), tl.where(tmp0 != tmp0, 0.0, {value}), {mask})")
        res = ev.evaluate(Candidate((name,), bad, origin="test"), perf=False)
        special = ev.plan.seeds[4]
        assert res.decision == "rejected" and f"seed {special}" in res.reason, res.reason
        assert ev.workers_started == 3, "a worker for each round (the first: the one that collected the truths)"
        from_rounds.clear()
        res = ev.evaluate(Candidate((name,), kernel.source + "\n# free-form\n", origin="test"), perf=False)
        assert res.decision == "verified", res.reason
        assert from_rounds == list(ev.plan.seeds), "every round's truths from its own worker"
        assert [g.gate for g in res.gates] == ["static", "correctness", "fp64"], "each gate once, not once a round"
        assert len(ev.plan.seeds) == 5 and len(ev.plan.timing) == 2  # nothing trimmed
        corr, fp64 = res.gate("correctness"), res.gate("fp64")
        assert corr.numbers["seeds"] == 5 and corr.numbers["rounds"] == [list(ev.plan.seeds[i:i + 2])
                                                                         for i in (0, 2, 4)], corr.numbers
        assert fp64.numbers["records"].startswith("every seed judged, in rounds of 2 of the 5 correctness seeds")
        assert not ev.truths().truths  # the one that sized the rounds, let go
        assert asked_clean == [[ev.plan.seeds[0]]], "only the sizing truth from the clean worker: rounds make theirs"
        res = ev.evaluate(Candidate((name,), kernel.source + "\n# free-form\n", origin="test"), perf=False, seeds=2)
        assert res.decision == "verified" and res.gate("fp64").numbers["truth_seeds"] == list(ev.plan.seeds[:2]), \
            "a plan of one round's seeds: its truths from that round's worker"


def test_the_baseline_running_out_of_memory_is_an_error_of_the_run_not_a_rejection(backend, monkeypatch):
    from pytest_kernelopt.errors import BaselineRunError
    from pytest_kernelopt.gates import calls

    session = _noise_session(backend)
    (graph, name), *_ = _reductions(session)

    def out_of_memory(*a, **k):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 56.00 GiB")

    monkeypatch.setattr(calls, "run_call", out_of_memory)
    with pytest.raises(BaselineRunError, match="error of the run, not of any candidate"):
        session.evaluate(Candidate((name,), graph.kernels[name].source, origin="test"), perf=False)


def test_the_float64_truth_runs_on_the_device_whenever_it_fits(monkeypatch):
    """On the device whenever the truth fits in its free memory (host float64 is about 100x slower), on the host
    only when it does not, nowhere when neither has room, and the reason names the memory it counted (the
    device's free memory and the host's are stand-ins here: the rule, not the GPU, is under test)."""
    import types

    from pytest_kernelopt.gates import fp64_place

    gib = 2**30
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (52 * gib, 80 * gib))
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda *a: 14 * gib)
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda *a: 12 * gib)  # 52 + 2 GiB free
    monkeypatch.setattr(fp64_place, "host_available", lambda: 100 * gib)
    session = types.SimpleNamespace(backend=types.SimpleNamespace(name="cuda"),
                                    settings=types.SimpleNamespace(fp64_max_gib=None))
    monkeypatch.setattr(fp64_place, "estimate_bytes", lambda s: 36 * gib)  # 4.5x a 8 GiB module's peak: fits
    where, why = fp64_place.place(session)
    assert where == "cuda" and why == "about 36.0 GiB needed, 54.0 GiB free on the device", why
    monkeypatch.setattr(fp64_place, "estimate_bytes", lambda s: 48 * gib)  # past 85% of what is free
    where, why = fp64_place.place(session)
    assert where == "cpu" and "54.0 GiB free on the device: computed on the host (100.0 GiB available)" in why, why
    monkeypatch.setattr(fp64_place, "host_available", lambda: 20 * gib)
    where, why = fp64_place.place(session)
    assert where == "skipped" and why.startswith("float64 check skipped: would need about 48.0 GiB"), why


def test_no_truth_is_held_past_its_seed_and_a_failed_attempt_is_let_go_before_the_host_tries(monkeypatch):
    """Each seed's float64 truth is computed with the device's room: no name of the collection still holds the last
    seed's truth while the next is computed, and where the device ran out of memory, what the failed attempt held
    (its frames, through the exception's traceback) is let go before the host's attempt, and the device memory
    given back between them.  (The truths are stand-ins: what is alive when is under test.)"""
    import gc
    import types
    import weakref

    from pytest_kernelopt.gates import trials

    class Held:  # a truth's or a failed attempt's device memory
        pass

    made: list = []
    alive_when_called: list = []
    released: list = []

    def truth_on(session, seed, where):
        gc.collect()
        alive_when_called.append((seed, where, [r() is not None for r in made]))
        held = Held()  # what this attempt holds on the device until it returns or its frames go
        made.append(weakref.ref(held))
        if seed == 2 and where == "cuda":
            raise torch.OutOfMemoryError("CUDA out of memory (a stand-in)")
        return [held], {}, []

    monkeypatch.setattr(trials, "place", lambda session: ("cuda", "fits"))
    monkeypatch.setattr(trials, "truth_on", truth_on)
    monkeypatch.setattr(trials, "release_device_memory", lambda: released.append(len(alive_when_called)))
    kept: dict = {}
    rec = trials.collect_truths(types.SimpleNamespace(), types.SimpleNamespace(seeds=(1, 2, 3)),
                                emit=lambda seed, run, error: kept.setdefault(seed, error))
    assert [(sd, w) for sd, w, _ in alive_when_called] == [(1, "cuda"), (2, "cuda"), (2, "cpu"), (3, "cpu")]
    # when seed 2 starts, seed 1's truth (emitted, and let go by the receiver) is gone; when the host's attempt at
    # seed 2 starts, the device's failed attempt is gone too, and the device memory was given back in between
    assert alive_when_called[1][2] == [False], alive_when_called
    assert alive_when_called[2][2] == [False, False], alive_when_called
    assert released == [2], released
    assert rec.truth_memory["where"] == "cpu" and "ran out of memory" in rec.truth_memory["reason"]
    assert kept == {1: "", 2: "", 3: ""}, kept


def test_a_problem_files_example_inputs_are_let_go_and_drawn_again_alike(backend, tmp_path):
    """The session lets a problem file's example inputs go once the module is compiled (on the H200 a 2 GiB
    input was a third copy carried through every phase); asked for later, they are drawn again, the same."""
    from pytest_kernelopt.problems import ProblemSpec, build_problem

    path = tmp_path / "scaled.py"
    path.write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                    "        return torch.relu(x) * 2\n\n"
                    "def get_inputs():\n    return [torch.randn(8, 16)]\n\n"
                    "def get_init_inputs():\n    return []\n")
    problem = build_problem(ProblemSpec.from_file(path), backend.device)
    first = problem.example_inputs[0].clone()
    sig = problem.signature()
    session = EvaluationSession(problem, Settings(seeds=2, base_seed=3), backend)
    assert problem._example is None, "the session let the example inputs go"
    assert problem.signature() == sig and problem._example is None, "the signature needs no redraw"
    assert torch.equal(problem.example_inputs[0], first), "drawn again, the same values"
    (graph, name), = session.captured.triton_kernels
    own = session.evaluate(Candidate((name,), graph.kernels[name].source), perf=False)
    assert own.decision == "verified", own.reason


def test_an_in_process_modules_example_inputs_are_the_users_and_kept(backend):
    x = torch.randn(4, 8, device=backend.device)
    problem = problem_from_objects(torch.nn.ReLU(), (x,), name="relu")
    EvaluationSession(problem, Settings(seeds=2, base_seed=3), backend)
    assert problem.example_inputs[0] is x


def test_the_input_cache_makes_room_before_it_draws(backend, monkeypatch):
    """At most the cache's own seeds and the one being drawn are alive at once: a cached seed is evicted
    before the next is drawn, not after (on the H200 that had been a third 2 GiB input during every draw)."""
    from pytest_kernelopt.gates import cascade

    session = _noise_session(backend)
    real = session.problem.draw_inputs
    peak = [0]

    def counting(seed):
        peak[0] = max(peak[0], len(session._drawn) + 1)  # the cached seeds and the one being drawn
        return real(seed)

    monkeypatch.setattr(session.problem, "draw_inputs", counting)
    one = cascade._nbytes(session.inputs(101))
    monkeypatch.setattr(cascade, "INPUT_CACHE_BYTES", one)  # room for exactly one seed
    session._drawn.clear()
    for seed in (201, 202, 203, 204):
        session.inputs(seed)
    assert len(session._drawn) == 1
    assert peak[0] == 1, f"{peak[0]} draws alive at once: the cached seed was still held while the next was drawn"


def test_the_noise_floor_is_the_larger_of_the_compiled_and_the_eager_modules_rounding(backend, monkeypatch):
    """Two honest computations, two runs each: the compiled module on the device, and the original module in
    its own precision where the float64 truth ran (the session's own module there; on a GPU, where the truth
    went to the host, a host copy: the eager module's intermediates had taken the gates to 3.5x the module's
    peak on the H200).  The floor is the larger of the two (either alone rounded far less than an honest
    tuner config on one machine or the other)."""
    from pytest_kernelopt.gates import fp64_place

    session = _noise_session(backend)
    seen = []
    real = fp64_place.run_once

    def recording(fn, module, inputs, **kw):
        seen.append((fn, next(iter(module.parameters())).device.type))
        return real(fn, module, inputs, **kw)

    monkeypatch.setattr(fp64_place, "run_once", recording)
    floors = {}
    real_runs = fp64_place._floor_runs

    def keeping(session_, seed_, truth_, inputs_, fn, *a, **kw):
        floors[fn is session.captured.compiled] = got = real_runs(session_, seed_, truth_, inputs_, fn, *a, **kw)
        return got

    monkeypatch.setattr(fp64_place, "_floor_runs", keeping)
    seed = session.plan.seeds[0]
    out, grads, noise = fp64_place.truth_on(session, seed, "cpu")
    compiled_runs, eager_runs = seen[-4:-2], seen[-2:]
    assert compiled_runs == [(session.captured.compiled, backend.device)] * 2, compiled_runs
    if backend.device == "cpu":
        assert eager_runs == [(session.module, "cpu")] * 2, eager_runs
    else:
        assert [d for _, d in eager_runs] == ["cpu", "cpu"] and eager_runs[0][0] is not session.module
    whole, per_decade = fp64_place.split_noise(noise)
    assert whole == [max(a[0], b[0]) for a, b in zip(floors[True], floors[False])]
    assert all(n > 0 for n in whole)
    # per decade of |truth| too, the larger of the two computations' in each (so at least the whole's larger)
    assert all(d and sum(v * v for v in d.values()) ** 0.5 >= w * (1 - 1e-9) for d, w in zip(per_decade, whole))


@pytest.mark.parametrize("backend_name,env,expected", [("cuda", None, 1), ("cuda", "0", 0), ("cpu", None, 0)])
def test_the_isolated_judge_takes_its_statistics_on_the_gpu_only_for_the_cuda_backend(monkeypatch, backend_name,
                                                                                       env, expected):
    """On the H200 the judge's host statistics cost 67 s of one candidate's 103 s (cumprod, 15 GiB of records):
    on the cuda backend the parent starts CUDA once, so chunked statistics run there; never on the CPU backend,
    and never with KERNELOPT_JUDGE_ON_GPU=0."""
    from pytest_kernelopt.isolate import SPENT, IsolatedEvaluator

    calls = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "init", lambda: calls.append(1))
    if env is None:
        monkeypatch.delenv("KERNELOPT_JUDGE_ON_GPU", raising=False)
    else:
        monkeypatch.setenv("KERNELOPT_JUDGE_ON_GPU", env)
    ev = object.__new__(IsolatedEvaluator)
    ev._judge_device_set, ev._ready, ev.spent = False, {"backend": backend_name}, dict.fromkeys(SPENT, 0.0)
    ev._judge_on_device()
    ev._judge_on_device()  # once per evaluator
    assert len(calls) == expected


def test_the_timeout_bounds_each_seeds_float64_truth_not_all_of_them(tmp_path):
    """groupnorm_big on the H200 (7 GiB input): its float64 truths of every seed together outlasted the 300 s
    timeout, each far within it.  A module whose float64 run takes 1.5 s: five seeds' truths take longer than
    the 5 s timeout, and are collected; a float64 run longer than the timeout still ends the collection."""
    from pytest_kernelopt.isolate import IsolatedEvaluator
    from pytest_kernelopt.problems import ProblemSpec

    def problem(seconds):
        path = tmp_path / f"slow_truth_{str(seconds).replace('.', '_')}.py"
        path.write_text(
            "import time\n\nimport torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
            f"        if x.dtype == torch.float64:\n            time.sleep({seconds})\n"
            "        return torch.relu(x) * 2.0\n\n\ndef get_inputs():\n    return [torch.randn(64, 64)]\n\n\n"
            "def get_init_inputs():\n    return []\n")
        return ProblemSpec.from_file(path)

    with IsolatedEvaluator(problem(1.5), Settings(seeds=5, base_seed=3, timeout=5.0)) as ev:
        t0 = time.perf_counter()
        rec = ev.truths()
        took = time.perf_counter() - t0
        assert len([s for s in rec.truths.values() if s is not None]) == len(ev.plan.seeds) >= 5
        assert took > 5.0, f"the truths took {took:.1f}s: within one timeout, this tests nothing"
    with IsolatedEvaluator(problem(8), Settings(seeds=2, base_seed=3, timeout=5.0)) as ev:
        with pytest.raises(RuntimeError, match="float64 truth of .* could not be collected: timed out after 5s"):
            ev.truths()
