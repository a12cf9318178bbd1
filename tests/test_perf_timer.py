"""The performance gate's timer and checks, on CPU with a fake CUDA clock: which calls are timed, re-warmed,
checked and copied to the host, and the statistic.  (No timing is asserted: the clock here is fake.)"""

from __future__ import annotations

import gc
import types

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates import digests, perf, seed_plan, timing  # noqa: E402


class FakeEvent:
    clock = [0.0]

    def __init__(self, **_):
        self.t = None

    def record(self):
        FakeEvent.clock[0] += 1.0
        self.t = FakeEvent.clock[0]

    def elapsed_time(self, other):
        return other.t - self.t


@pytest.fixture
def fake_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(timing, "_flush_buffer", lambda: torch.empty(8, dtype=torch.int8))


def _recording_call(log, who):
    def call(i):
        log.append((who, i, gc.isenabled()))
        return torch.full((4,), float(i))
    return call


def test_every_timed_sample_is_rewarmed_on_another_input_set(fake_cuda):
    log, scrubbed, seen = [], [], []
    variants = [(lambda: None, _recording_call(log, "A")), (lambda: None, _recording_call(log, "B"))]
    times = timing.time_interleaved(variants, 3, 4, 1, after=lambda j, k, out: seen.append((j, k)),
                                  rewarm=lambda out: scrubbed.append(out.clone()))
    assert [len(t) for t in times] == [4, 4]
    timed = log[2:]  # after one warmup call per variant
    # each sample is a pair (re-warm on set i+1, timed on set i), order ABBA
    assert [(w, i) for w, i, _ in timed[:4]] == [("A", 1), ("A", 0), ("B", 1), ("B", 0)]
    assert [(w, i) for w, i, _ in timed[4:8]] == [("B", 2), ("B", 1), ("A", 2), ("A", 1)]
    for (w1, warm, _), (w2, timed_set, _) in zip(timed[::2], timed[1::2]):
        assert w1 == w2 and warm != timed_set, "the re-warming call never uses the set about to be timed"
    assert len(scrubbed) == 8 and len(seen) == 2 + 8, "rewarm sees re-warm outputs, after sees warmup and timed"
    assert not any(enabled for _, _, enabled in timed), "the garbage collector is off while sampling"
    assert gc.isenabled()


def test_a_single_input_set_is_not_rewarmed(fake_cuda):
    log = []
    timing.time_interleaved([(lambda: None, _recording_call(log, "A"))], 1, 3, 0, rewarm=lambda out: None)
    assert [i for _, i, _ in log] == [0, 0, 0], "with one set a re-warm would replay the timed call's input"


def test_checksums_do_not_depend_on_the_chunk_size(monkeypatch):
    gen = torch.Generator().manual_seed(0)
    out = (torch.randn(1000, generator=gen), torch.randn(37, generator=gen))
    out[0][5] = float("nan")
    whole = timing.checksums(out, {})
    monkeypatch.setattr(timing, "CHECKSUM_CHUNK", 64)
    chunked_a = timing.checksums(out, {})
    chunked_b = timing.checksums(out, {})
    assert chunked_a == chunked_b, "the same positions get the same weights on every call"
    assert [c[2:] for c in chunked_a] == [c[2:] for c in whole] == [(1, 1000), (0, 37)]
    other = (out[0].roll(1), out[1])
    assert timing.checksums(other, {})[0][0] != chunked_a[0][0], "a permuted output changes the weighted sum"


def _stand_in_module(monkeypatch):
    """A kernel swap, a session of 7 timed calls after 2 warmups, and a module whose call on input set ``sd`` gives
    ``sd`` (plus 0.5 with the candidate swapped in); ``calls`` records (swapped in, input set index) of each call."""
    calls: list = []

    class Swap:
        active = False

        def on(self):
            self.active = True

        def off(self):
            self.active = False

    swap = Swap()
    session = types.SimpleNamespace(settings=Settings(perf_samples=7, perf_warmup=2), inputs=lambda sd: (sd,))

    def module_call(_session, inputs):
        def call(i):
            calls.append((swap.active, i))
            return torch.full((3,), float(inputs[i][0]) + (0.5 if swap.active else 0.0))
        return call

    monkeypatch.setattr(timing, "module_call", module_call)
    return swap, session, calls


def test_only_the_final_call_per_input_set_is_copied_to_the_host(fake_cuda, monkeypatch):
    copies = []
    real = timing.keep
    monkeypatch.setattr(timing, "keep", lambda obj: copies.append(obj) or real(obj))
    swap, session, calls = _stand_in_module(monkeypatch)
    base, cand, outs = timing.measure_with_outputs(session, swap, (11, 12, 13))
    assert len(base) == len(cand) == 7
    assert len(copies) == 3, "one host copy per input set"
    assert {sd: float(t[0]) for sd, t in outs["last"].items()} == {11: 11.5, 12: 12.5, 13: 13.5}
    assert sum(len(v) for v in outs["sums"]["cand"].values()) == 2 + 7, "every warmup and timed call is checked"


def test_with_a_receiver_each_sets_last_output_goes_to_it_as_its_call_returns_and_no_host_copy_is_made(
        fake_cuda, monkeypatch):
    """Where the parent takes device frames, the candidate's last output on each set is handed over from the
    ``after`` hook of its own call, before any further call (the worker then sends it as a device frame the
    parent copies), whole, and not also copied to the host."""
    copies = []
    monkeypatch.setattr(timing, "keep", lambda obj: copies.append(obj) or obj)
    swap, session, calls = _stand_in_module(monkeypatch)
    emitted = []
    timing.measure_with_outputs(session, swap, (11, 12, 13),
                                emit_last=lambda sd, out: emitted.append((sd, out.clone(), len(calls))))
    assert sorted((sd, float(t[0])) for sd, t, _ in emitted) == [(11, 11.5), (12, 12.5), (13, 13.5)]
    for sd, _, n in emitted:  # handed over before the next call: the last call so far is the candidate's on its set
        assert calls[n - 1] == (True, (11, 12, 13).index(sd))
    assert copies == []


def test_the_speedup_is_the_median_of_the_pair_ratios():
    base = [1.0, 2.0, 3.0, 4.0, 5.0]
    cand = [0.5, 2.0, 3.0, 2.0, 5.0]  # pair ratios 2, 1, 1, 2, 1: median 1 (the ratio of medians would be 1.5)
    point, lo, hi = perf.speedup_interval(base, cand, 0.9)
    assert point == pytest.approx(1.0) and lo <= point <= hi
    drift = [1.0 + 0.5 * k for k in range(40)]  # slow drift shared by both, a steady 5% win within each pair
    point, lo, hi = perf.speedup_interval(drift, [t / 1.05 for t in drift], 0.95)
    assert point == pytest.approx(1.05) and lo == pytest.approx(1.05), "drift between pairs cancels"


def test_the_input_digest_sees_one_changed_bit_and_ignores_nan_payloads(monkeypatch):
    monkeypatch.setattr(digests, "DIGEST_CHUNK", 64)  # several chunks
    x = torch.randn(1000)
    one_ulp = x.clone()
    one_ulp[700] = torch.nextafter(one_ulp[700], torch.tensor(10.0))
    assert digests.digest(x, 5) == digests.digest(x.clone(), 5)
    assert digests.digest(x, 5) != digests.digest(one_ulp, 5)
    assert digests.digest(x, 5) != digests.digest(x.reshape(10, 100), 5), "the shape is part of it"
    nan_a, nan_b = x.clone(), x.clone()
    nan_a[0] = float("nan")
    nan_b.view(torch.int32)[0] = 0x7FC00001  # another NaN payload
    assert digests.digest(nan_a, 1) == digests.digest(nan_b, 1)
    flags = torch.zeros(9, dtype=torch.bool)
    assert digests.digest(flags, 1) != digests.digest(flags.logical_not(), 1)


def test_the_input_digest_is_not_linear_and_its_key_is_secret_and_fresh(monkeypatch):
    """A mutation that would cancel in a linear hash with known weights (+d at one position, -d*w_i/w_j at
    another) changes this one; the key is drawn fresh per plan (a pinned base seed included), survives trimming
    and is in neither the plan's published form nor its repr."""
    import dataclasses
    import json

    x = torch.zeros(64, dtype=torch.int64)
    key = 12345
    w = digests.position_hash(key, 0, 64, "cpu") | 1
    # a change at 3 and 5 that cancels in sum(bits * w) mod 2**64 exactly
    inv5 = pow(int(w[5]) % 2**64, -1, 2**64)
    d3 = 1
    d5 = (-d3 * (int(w[3]) % 2**64) * inv5) % 2**64
    y = x.clone()
    y[3] += d3
    y[5] = digests._signed64(d5)
    linear = lambda t: int((t * w).sum()) % 2**64  # noqa: E731
    assert linear(x) == linear(y), "the mutation is built to cancel in a linear hash"
    assert digests.digest(x, key) != digests.digest(y, key)
    swapped = torch.randn(64)
    perm = swapped.clone()
    perm[[7, 9]] = perm[[9, 7]]
    assert digests.digest(swapped, key) != digests.digest(perm, key), "two elements swapped"
    assert digests.digest(swapped, key) != digests.digest(swapped, key + 1)

    a = seed_plan.SeedPlan.make(3, base_seed=7)
    b = seed_plan.SeedPlan.make(3, base_seed=7)
    assert (a.seeds, a.scales) == (b.seeds, b.scales) and a.digest_key != b.digest_key
    assert a.trimmed(1, 1).digest_key == a.digest_key
    published = json.dumps(a.to_json()) + repr(a)
    assert str(a.digest_key) not in published
    assert "digest_key" in {f.name for f in dataclasses.fields(a)}


def _timed_session(backend, monkeypatch, speedup, spread, **settings):
    """An in-process session on the CPU whose timer is a stand-in: the baseline's call takes 1 ms, the
    candidate's 1/speedup ms, each times (1 + spread * noise); everything else (the re-warming calls, the
    output checks, the judge) is the gate's own."""
    import dataclasses
    import random

    from pytest_kernelopt.gates.cascade import EvaluationSession
    from pytest_kernelopt.problems import problem_from_objects

    class Scale(torch.nn.Module):
        def forward(self, x):
            return torch.relu(x * 2.0 + 1.0)

    timed = dataclasses.replace(backend, measures_time=True, description="CPU with a stand-in timer")
    session = EvaluationSession(problem_from_objects(Scale().eval(), (torch.randn(64, 32),), "stand-in timer"),
                                Settings(**{"seeds": 2, "isolate": False, **settings}), timed)
    rng = random.Random(0)
    real_call = timing.module_call
    active: list = []

    def module_call(sess, inputs):
        call = real_call(sess, inputs)

        def f(i):
            FakeEvent.clock[0] += (1.0 / speedup if active and active[0].active else 1.0) * (1 + spread * rng.gauss(0, 1))
            return call(i)
        return f

    monkeypatch.setattr(timing, "module_call", module_call)
    return session, active


def _cheap_timing(monkeypatch):
    monkeypatch.setattr(FakeEvent, "record", lambda self: setattr(self, "t", FakeEvent.clock[0]))


@pytest.mark.parametrize("speedup,spread,looks", [(1.5, 0.01, 1), (1.03, 0.10, None)])
def test_the_sequential_gate_times_the_pairs_of_its_schedule(backend, fake_cuda, monkeypatch, speedup, spread,
                                                             looks):
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.substitute import KernelSwap

    if backend.name != "cpu":
        pytest.skip("the stand-in timer replaces CUDA events: CPU only")
    _cheap_timing(monkeypatch)
    session, active = _timed_session(backend, monkeypatch, speedup, spread, perf_samples=10,
                                     perf_max_samples=80, perf_warmup=1)
    (graph, name), = session.captured.triton_kernels
    real_swap = KernelSwap.__init__

    def remember(self, *a, **k):
        real_swap(self, *a, **k)
        active[:] = [self]

    monkeypatch.setattr(KernelSwap, "__init__", remember)
    result = session.evaluate(Candidate((name,), graph.kernels[name].source, origin="a/a"))
    gate = result.gate("performance")
    assert gate is not None and gate.numbers["measured"] is True, result.reason
    assert gate.numbers["timed_outputs_checked"] is True, gate.reason
    samples, rounds = gate.numbers["samples"], gate.numbers["rounds"]
    assert samples == perf.schedule(session.settings)[rounds - 1], "every look is a look of the schedule"
    if looks == 1:
        assert rounds == 1 and result.decision == "accepted", gate.reason
    else:  # 3% under 10% noise: undecided at 10 pairs, so it samples again
        assert rounds > 1 and samples in (20, 40, 80), gate.reason


def test_the_interval_misses_the_true_speedup_no_more_often_than_it_promises():
    """The sign-test interval's one-sided miss rate at 30 pairs, over many A/A draws, stays within its
    promise (a percentile bootstrap of the median missed about twice as often at this size)."""
    import random

    rng = random.Random(7)
    conf, trials, misses = 0.99, 4000, 0
    for _ in range(trials):
        base = [rng.lognormvariate(0, 0.05) for _ in range(30)]
        cand = [rng.lognormvariate(0, 0.05) for _ in range(30)]
        _, lo, _ = perf.speedup_interval(base, cand, conf)
        misses += lo > 1.0
    assert misses / trials <= (1 - conf) / 2 + 0.0025, misses  # 0.5% promised, binomial slack of ~2 SE


def test_too_few_pairs_for_the_confidence_give_no_interval():
    point, lo, hi = perf.speedup_interval([2.0] * 5, [1.0] * 5, 0.99)
    assert point == pytest.approx(2.0) and lo == 0.0 and hi == float("inf"), "5 pairs cannot promise 99%"
    assert perf.sign_test_rank(30, 0.005) >= 0 and perf.sign_test_rank(5, 0.005) == -1


def test_the_gate_on_its_own_times_as_the_cascade_does(backend, fake_cuda, monkeypatch):
    from pytest_kernelopt.candidate import Candidate
    from pytest_kernelopt.gates.cascade import time_sequentially
    from pytest_kernelopt.gates.perf import PerfGate
    from pytest_kernelopt.gates.trial_records import CandidateRecord
    from pytest_kernelopt.substitute import KernelSwap

    if backend.name != "cpu":
        pytest.skip("the stand-in timer replaces CUDA events: CPU only")
    _cheap_timing(monkeypatch)
    session, active = _timed_session(backend, monkeypatch, 1.03, 0.10, perf_samples=10, perf_max_samples=40,
                                     perf_warmup=0)
    (graph, name), = session.captured.triton_kernels
    swap = KernelSwap(session.captured, [Candidate((name,), graph.kernels[name].source, origin="a/a")])
    active[:] = [swap]
    rec = CandidateRecord()
    time_sequentially(session, swap, session.plan, rec)
    result = PerfGate().judge(session.settings, session.baseline_record(), rec, True, session.backend.name)
    assert result.numbers["measured"] is True and result.numbers["rounds"] > 1, result.reason
    assert result.numbers["samples"] in perf.schedule(session.settings)


def test_primed_samples_follow_a_call_of_their_own_variant(fake_cuda):
    """``prime``: every timed call comes right after an untimed call of the same variant on the same input
    (the bench's compiled modes: whatever the order, no timed call follows another mode's)."""
    log, starts = [], []
    real_record = FakeEvent.record

    def record(self):
        starts.append(len(log))
        real_record(self)

    variants = [(lambda: None, _recording_call(log, w)) for w in "ABC"]
    try:
        FakeEvent.record = record
        times = timing.time_interleaved(variants, 1, 6, 0, prime=True, rotate=True)
    finally:
        FakeEvent.record = real_record
    assert [len(t) for t in times] == [6, 6, 6]
    assert len(log) == 2 * 18, "one untimed and one timed call a sample"
    timed_at = starts[::2]  # start.record() is called just before each timed call
    for k in timed_at:
        assert log[k][0] == log[k - 1][0], "the call before a timed one is its own variant's"
    assert not any(enabled for _, _, enabled in log)


def test_rotated_order_puts_every_variant_in_every_slot():
    for n in (3, 4, 5):
        orders = [timing.interleave_order(n, i, rotate=True) for i in range(2 * n)]
        assert all(sorted(o) == list(range(n)) for o in orders)
        for slot in range(n):
            assert sorted(o[slot] for o in orders) == sorted(list(range(n)) * 2), (n, slot)
    # plain ABBA: the middle variant of three never leaves the middle
    assert {timing.interleave_order(3, i)[1] for i in range(6)} == {1}
    # two variants: the gate's ABBA, rotated or not
    assert [timing.interleave_order(2, i, rotate=True) for i in range(4)] == [timing.interleave_order(2, i)
                                                                           for i in range(4)]


def test_priming_with_several_input_sets_never_replays_the_timed_input(fake_cuda):
    log = []
    variants = [(lambda: None, _recording_call(log, w)) for w in "ABC"]
    timing.time_interleaved(variants, 3, 6, 0, prime=True, rotate=True)
    pairs = list(zip(log[::2], log[1::2]))  # (untimed, timed) per sample and variant
    assert len(pairs) == 18
    for (w1, warm, _), (w2, timed, _) in pairs:
        assert w1 == w2 and warm == (timed + 1) % 3
