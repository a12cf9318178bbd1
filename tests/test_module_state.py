"""Module state in the gates: every call starts from the same state, and what a call changes is compared like an
output (:mod:`pytest_kernelopt.gates.module_state`; red team 10).

Before: a running average kept in a buffer turned NaN on the seed with NaN inputs and stayed NaN, so a kernel
adding 1.0 to every output compared "max abs 0" and was verified (and, judged in-process, every honest kernel
was rejected); a buffer moved by every call made an honest kernel fail the float64 gate by drift; a call counter
kept in a plain tensor attribute or a module-level tensor was state no check looked at.
"""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.gates.module_state import ModuleState, state_items  # noqa: E402
from pytest_kernelopt.problems import problem_from_objects  # noqa: E402

TABLE = torch.linspace(0.5, 1.5, 128)  # a module-level tensor a forward reads


class Ema(torch.nn.Module):
    """A running average updated from the input on every call, and used by the output."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("ema", torch.zeros(8))

    def forward(self, x):
        with torch.no_grad():
            self.ema.mul_(0.9).add_(x.mean(0), alpha=0.1)
        return x - self.ema


class Drift(torch.nn.Module):
    """A buffer moved by 0.5 on every call."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("acc", torch.zeros(()))

    def forward(self, x):
        self.acc.add_(0.5)
        return torch.tanh(x - self.acc)


class AttrTable(torch.nn.Module):
    """A table held as a plain attribute (neither parameter nor buffer), sliced: its tail is never read."""

    def __init__(self) -> None:
        super().__init__()
        self.table = torch.linspace(0.5, 1.5, 128)

    def forward(self, x):
        return x * self.table[:64]


class GlobalTable(torch.nn.Module):
    def forward(self, x):
        return x * TABLE[:64]


class Nested(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("steps", torch.zeros(1))
        self.cache = [torch.ones(3), {"k": torch.zeros(2)}]
        self.inner = AttrTable()

    def forward(self, x):
        return self.lin(x) * TABLE[:4]


def _session(backend, module, x, **settings):
    return EvaluationSession(problem_from_objects(module.to(backend.device).eval(), (x.to(backend.device),), "state"),
                             Settings(**{"seeds": 6, "isolate": False, **settings}), backend)


def _kernels(session):
    return [graph.kernels[name] for graph, name in session.captured.triton_kernels]


def _edit_store(kernel, value):
    """The kernel with its (only) store to ``out_ptr0`` writing ``value.format(v)`` instead of ``v``."""
    pattern = re.compile(r"tl\.store\(out_ptr0 \+ \((x\d+)\), (tmp\d+), xmask\)")
    (m,) = pattern.finditer(kernel.source)
    new = f"tl.store(out_ptr0 + ({m.group(1)}), {value.format(m.group(2))}, xmask)"
    return Candidate((kernel.name,), kernel.source[:m.start()] + new + kernel.source[m.end():])


def test_state_items_are_parameters_buffers_tensor_attributes_and_module_level_tensors():
    names = dict(state_items(Nested()))
    assert {"lin.weight", "lin.bias", "steps", "cache[0]", "cache[1]['k']", "inner.table"} <= set(names)
    glob = [n for n in names if n.startswith("<global ") and n.endswith(".TABLE>")]
    assert glob and names[glob[0]] is TABLE
    assert len({id(t) for t in names.values()}) == len(names), "each tensor once"
    assert not [n for n in names if "torch" in n], "torch's own globals are not the module's state"


def test_module_state_puts_back_what_any_call_changed_and_reports_what_a_call_changed():
    m = Ema()
    state = ModuleState(m, key=7)
    m(torch.randn(64, 8))  # a call nobody tracked (a capture, a measurement)
    state.begin()
    assert torch.equal(m.ema, torch.zeros(8)), "begin() puts back what differs, tracked or not"
    x = torch.randn(64, 8)
    m(x)
    changed, values = state.end()
    assert list(changed) == ["ema"] and torch.allclose(values["state:ema"], 0.1 * x.mean(0))
    m(x)  # the state a second call would see if nothing put it back
    state.begin(fast=True)
    assert torch.equal(m.ema, torch.zeros(8))


def test_a_running_average_module_judges_honest_kernels_and_rejects_wrong_outputs_and_wrong_state(backend):
    session = _session(backend, Ema(), torch.randn(64, 8))
    kernels = _kernels(session)
    for k in kernels:  # red team 10, F2: every honest kernel was rejected in-process ("NaN positions differ")
        honest = session.evaluate(Candidate((k.name,), k.source), perf=False)
        assert honest.decision == "verified", (k.name, honest.reason)
    out = next(k for k in kernels if "tmp0 - " in k.source)
    upd = next(k for k in kernels if "copy_" in k.name)
    wrong_out = session.evaluate(_edit_store(out, "{} + 1.0"), perf=False)  # F1: verified with "max abs 0"
    assert wrong_out.decision == "rejected", wrong_out.reason
    wrong_state = session.evaluate(_edit_store(upd, "{} + 5.0"), perf=False)  # F1: the buffer 5.0 off, verified
    assert wrong_state.decision == "rejected", wrong_state.reason
    no_update = session.evaluate(_edit_store(upd, "tmp0"), perf=False)  # the average never moves
    assert no_update.decision == "rejected", no_update.reason
    assert "changed state" in no_update.reason, no_update.reason


@pytest.mark.parametrize("base_seed", [197159202, 1, 2])
def test_a_buffer_moved_by_every_call_does_not_fail_an_honest_kernel(backend, base_seed):
    """Red team 10, F3: 3 of 5 A/A judgements failed the float64 gate (the state drifted between the baseline,
    the candidate and the float64 truth)."""
    session = _session(backend, Drift(), torch.randn(16, 64), base_seed=base_seed)
    for k in _kernels(session):
        result = session.evaluate(Candidate((k.name,), k.source), perf=False)
        assert result.decision == "verified", (k.name, result.reason)


BOMB = """
    cnt = tl.load({ptr} + 127)
    if cnt > 1000.0:
        {val} = {val} * 1.01
    if tl.program_id(0) == 0:
        tl.store({ptr} + 127, cnt + 1.0)
"""


@pytest.mark.parametrize("module", [AttrTable, GlobalTable])
def test_a_call_counter_in_a_tensor_attribute_or_a_module_level_tensor_is_seen(backend, module):
    """Red team 10, F4: the counter sat in the table's unused tail; exact for 1000 calls, 1% off after."""
    global TABLE
    host_table = TABLE
    # a plain tensor attribute or a module-level tensor does not follow module.to(): put it on the device
    TABLE = TABLE.to(backend.device)
    try:
        _counter_is_seen(backend, module)
    finally:
        TABLE = host_table


def _counter_is_seen(backend, module):
    keep = TABLE.clone()
    m = module()
    if isinstance(m, AttrTable):
        m.table = m.table.to(backend.device)
    session = _session(backend, m, torch.randn(16, 64))
    (k,) = _kernels(session)
    honest = session.evaluate(Candidate((k.name,), k.source), perf=False)
    assert honest.decision == "verified", honest.reason
    store = re.search(r"\n(    tl\.store\(out_ptr0 \+ \(x\d+\), (tmp\d+), xmask\))", k.source)
    table = re.search(r"tl\.load\((in_ptr\d+) \+ \(x0\)", k.source).group(1)
    bomb = BOMB.format(ptr=table, val=store.group(2))
    src = k.source.replace(store.group(0), bomb.rstrip() + "\n" + store.group(1))
    result = session.evaluate(Candidate((k.name,), src), perf=False)
    assert result.decision == "rejected" and "changes module state the baseline leaves alone" in result.reason, \
        result.reason
    assert torch.equal(TABLE, keep), "the judge put the module-level table back"



class AffineNorm(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(64)  # weight 1, bias 0 as built

    def forward(self, x):
        return self.norm(x)


def test_parameters_at_their_initial_values_do_not_hide_a_kernel_that_drops_them(backend):
    """Red team 11, F08: a LayerNorm kernel storing (x - mean) * rstd without its weight and bias was verified,
    the module being judged at its initialisation (weight 1, bias 0).  The first seed's calls start from a varied
    state (baseline, candidate and float64 truth alike); the module is put back as found afterwards."""
    module = AffineNorm()
    session = _session(backend, module, torch.randn(16, 64))
    (k,) = _kernels(session)
    honest = session.evaluate(Candidate((k.name,), k.source), perf=False)
    assert honest.decision == "verified", honest.reason
    # the kernel's loads of the affine weight (in_ptr1) and bias (in_ptr2): read, then replaced by 1 and 0
    src = k.source
    for ptr, value in (("in_ptr1", "1.0"), ("in_ptr2", "0.0")):
        src, n = re.subn(rf"= (tl\.load\({ptr} [^\n]*\))$", rf"= (\1 * 0.0 + {value})", src, flags=re.M)
        assert n == 1, (ptr, k.source)
    dropped = session.evaluate(Candidate((k.name,), src), perf=False)
    assert dropped.decision == "rejected", dropped.reason
    assert "parameters and state varied" in dropped.reason or dropped.failed_gate.gate == "fp64", dropped.reason
    assert torch.equal(module.norm.weight.detach().cpu(), torch.ones(64))
    assert torch.equal(module.norm.bias.detach().cpu(), torch.zeros(64))


def test_the_varied_state_is_deterministic_and_keeps_nonnegative_tensors_nonnegative():
    from pytest_kernelopt.gates.module_state import varied_values

    pristine = {"w": torch.ones(8), "b": torch.zeros(8), "var": torch.rand(8), "steps": torch.tensor(3),
                "mask": torch.tensor([0.0, float("-inf")])}
    a, b = varied_values(pristine, 11), varied_values(pristine, 11)
    assert a.keys() == {"w", "b", "var", "mask"} and all(torch.equal(a[n], b[n]) for n in a)  # no counter named
    assert not torch.equal(a["w"], pristine["w"]) and not torch.equal(a["b"], pristine["b"])
    assert (a["var"] >= 0).all() and a["mask"][1] == float("-inf")
    assert not torch.equal(varied_values(pristine, 12)["w"], a["w"])


class ClassCounter(torch.nn.Module):
    """Counts calls in a tensor the class holds (shared by its instances): red team 11, F10/F11."""

    calls = torch.zeros(16)

    def forward(self, x):
        ClassCounter.calls.add_(1.0)
        return torch.relu(x) * 2.0


def test_a_tensor_held_by_the_module_class_is_state_and_put_back(backend):
    names = [n for n, _ in state_items(ClassCounter())]
    assert any(n.startswith("<class ") and n.endswith("ClassCounter.calls>") for n in names), names
    original = ClassCounter.calls.clone()
    try:
        session = _session(backend, ClassCounter(), torch.randn(16, 64))
        keep = ClassCounter.calls.clone()  # as the session found it, after the compile's own call
        for k in _kernels(session):  # A/A candidates: every call starts from the same state
            honest = session.evaluate(Candidate((k.name,), k.source), perf=False)
            assert honest.decision == "verified", (k.name, honest.reason)
        assert torch.equal(ClassCounter.calls, keep), "the judge put the class's counter back"
    finally:
        ClassCounter.calls.copy_(original)


def test_counters_are_advanced_within_their_range_and_apart_from_the_floating_draws():
    from pytest_kernelopt.gates.module_state import int_scalars, varied_values

    pristine = {"w": torch.ones(8), "step": torch.tensor(7), "pos": torch.tensor([2], dtype=torch.int32),
                "full": torch.tensor(250, dtype=torch.uint8), "flag": torch.tensor(True), "idx": torch.arange(4)}
    assert int_scalars(pristine) == ["full", "pos", "step"]
    plain = varied_values(pristine, 5)
    both = varied_values(pristine, 5, ["step", "pos", "full", "flag", "idx"])
    assert torch.equal(plain["w"], both["w"])  # the floating draws do not depend on which counters there are
    assert "step" not in plain and "flag" not in both and "idx" not in both
    for name in ("step", "pos"):
        assert both[name].dtype == pristine[name].dtype and 3 <= int(both[name] - pristine[name]) <= 1000
    assert int(both["full"]) <= 255 and int(both["full"]) > 250  # never past the dtype's range
    steps = {int(varied_values(pristine, sd, ["step"])["step"]) for sd in range(40)}
    assert len(steps) > 20 and min(steps) < 60 < max(steps)  # spread over three decades


class BiasCorrected(torch.nn.Module):
    """A bias-corrected running average: the correction depends on a step counter every call advances."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("step", torch.zeros((), dtype=torch.int64))
        self.register_buffer("avg", torch.zeros(64))

    def forward(self, x):
        self.step += 1
        self.avg.mul_(0.9).add_(0.1 * x.mean(0))
        return self.avg / (1 - 0.9 ** self.step)


def test_a_step_counter_is_advanced_on_the_varied_seed_and_a_time_bomb_is_caught(backend):
    """Red team 11: every call started from step 1, so a kernel 1% off after step 3 was verified."""
    module = BiasCorrected()
    session = _session(backend, module, torch.randn(16, 64))
    found = int(module.step)
    kernels = _kernels(session)
    for k in kernels:
        honest = session.evaluate(Candidate((k.name,), k.source), perf=False)
        assert honest.decision == "verified", (k.name, honest.reason)
    assert session.state.counters == ("step",) and session.state.far_counters == ("step",)
    assert session.state_note == ""
    (k,) = [k for k in kernels if "libdevice.pow" in k.source]
    store = re.search(r"tl\.store\((out_ptr\d+) \+ \((x\d+)\), (tmp\d+), xmask\)", k.source)
    step = re.search(r"(tmp\d+) = (tmp\d+) \+ (tmp\d+)\n\s*(tmp\d+) = \1\.to\(tl\.float32\)", k.source)
    assert store and step, k.source
    # wrong after step 3 (red team 11: caught on the varied seed), after step 1000 (red team 12: the far seed)
    for after, where in ((3, "parameters and state varied"), (1000, "integer counters (if any) advanced far")):
        bomb = (f"tl.store({store.group(1)} + ({store.group(2)}), "
                f"tl.where({step.group(1)} > {after}, {store.group(3)} * 1.01, {store.group(3)}), xmask)")
        res = session.evaluate(Candidate((k.name,), k.source.replace(store.group(0), bomb)), perf=False)
        assert res.decision == "rejected", (after, res.reason)
        # (or by a loop of calls from the state the candidate's own calls left, where the step passes 3)
        assert where in res.reason or "of a loop" in res.reason or res.failed_gate.gate == "fp64", (after, res.reason)
    assert int(module.step) == found, "the judge put the counter back"


class PositionIndex(torch.nn.Module):
    """A position used as an index into a 4-row table: advanced, it is out of range."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("pos", torch.zeros((), dtype=torch.int64))
        self.register_buffer("table", torch.randn(4, 64))

    def forward(self, x):
        out = x * self.table.index_select(0, self.pos.view(1))
        self.pos += 1
        return out


def test_a_position_that_cannot_be_advanced_far_is_advanced_within_its_range_and_said_so(backend):
    """A 4-row table: the varied seed's step (3 to 1000) is halved, and the calls past it shortened, until the
    eager module runs with both (since session 21; before, the position was left alone); the far-counter seed
    leaves it alone."""
    module = PositionIndex()
    session = _session(backend, module, torch.randn(16, 64))
    module_pos = int(module.pos)
    assert _kernels(session), "expected a Triton kernel"
    for k in _kernels(session):
        honest = session.evaluate(Candidate((k.name,), k.source), perf=False)
        assert honest.decision == "verified", (k.name, honest.reason)
    assert session.state.counters == ("pos",) and session.state.far_counters == ()
    advanced = int(session.state.varied(session.plan.seeds[0])["pos"])
    assert 1 <= advanced and advanced + session.state.margin <= 3, (advanced, session.state.margin)
    assert "advanced on the varied seed by at most pos" in session.state_note, session.state_note
    assert "not advanced on the far-counter seed" in session.state_note and "raised" in session.state_note
    assert int(module.pos) == module_pos


class FloatStep(torch.nn.Module):
    """A bias-corrected average whose step counter is kept in a float buffer (red team 13)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("step", torch.zeros(()))

    def forward(self, x):
        self.step += 1.0
        return x / (1 - 0.9 ** self.step)


def test_a_counter_kept_in_a_float_is_stepped_not_scaled(backend):
    module = FloatStep()
    session = _session(backend, module, torch.randn(16, 64))
    kernels = _kernels(session)
    for k in kernels:
        honest = session.evaluate(Candidate((k.name,), k.source), perf=False)
        assert honest.decision == "verified", (k.name, honest.reason)
    assert session.state.counters == ("step",) and session.state.far_counters == ("step",)
    seed = session.plan.seeds[0]
    varied = session.state.varied(seed)["step"]
    assert float(varied) == round(float(varied)) and float(varied) >= float(module.step) + 3
    (k,) = [k for k in kernels if "libdevice.pow" in k.source]
    store = re.search(r"tl\.store\((out_ptr\d+) \+ \((x\d+)\), (tmp\d+), xmask\)", k.source)
    loaded = re.search(r"(tmp\d+) = tl\.load\(in_ptr\d+ \+ \(0\)\)", k.source)
    assert store and loaded, k.source
    bomb = (f"tl.store({store.group(1)} + ({store.group(2)}), "
            f"tl.where({loaded.group(1)} > 2.5, {store.group(3)} * 1.01, {store.group(3)}), xmask)")
    res = session.evaluate(Candidate((k.name,), k.source.replace(store.group(0), bomb)), perf=False)
    assert res.decision == "rejected", res.reason


def test_the_baselines_loop_states_past_their_byte_budget_drop_the_oldest_and_keep_the_last_two(monkeypatch):
    from pytest_kernelopt.gates import baseline_loop as bl

    monkeypatch.setattr(bl, "KEEP_BYTES", 3 * 4 * 100)  # three states of 100 float32
    kept: list = []
    for k in range(5):
        bl._keep(kept, bl.LoopState(str(k), {"s": torch.zeros(100)}))
    assert [ls.label for ls in kept] == ["2", "3", "4"]
    monkeypatch.setattr(bl, "KEEP_BYTES", 0)
    bl._keep(kept, bl.LoopState("5", {"s": torch.zeros(100)}))
    assert [ls.label for ls in kept] == ["4", "5"]


def test_jittered_inputs_keep_layout_dtype_and_non_floating_arguments_and_stay_within_the_level():
    from pytest_kernelopt.gates.baseline_loop import jittered

    x = torch.randn(6, 4).t()  # a transposed layout: the compiled module guards on strides
    ids = torch.arange(5)
    y, j, half = jittered((x, ids, torch.ones(3, dtype=torch.float16)), 0.1, 7)
    assert y.stride() == x.stride() and y.dtype == x.dtype and j is ids
    assert bool(((y / x - 1).abs() <= 0.1 + 1e-6).all()) and not torch.equal(y, x)
    assert half.dtype == torch.float16 and bool(((half - 1).abs() <= 0.11).all())
    again = jittered((x,), 0.1, 7)[0]
    assert torch.equal(again, y), "the same seed draws the same jitter"


class Growth(torch.nn.Module):
    """A buffer multiplied by 16 on every call: float32 overflows after about 32 calls from 1."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("g", torch.ones(8))

    def forward(self, x):
        self.g.mul_(16.0)
        return x * self.g


def test_the_candidates_own_stream_stops_where_the_baselines_stream_overflowed(backend):
    """The baseline's stream of fresh inputs ends where a call would overflow the state (that call undone); the
    candidate makes the calls before it, and not the one that overflowed: Inductor's own kernels pass, and a kernel
    that grows the state by 5 instead is refused."""
    session = _session(backend, Growth(), torch.randn(4, 8))
    kernels = _kernels(session)
    for k in kernels:
        honest = session.evaluate(Candidate((k.name,), k.source), perf=False)
        assert honest.decision == "verified", (k.name, honest.reason)
        note = next(g for g in honest.gates if g.gate == "correctness").numbers["loop_note"]
        made = re.search(r"the baseline's stream of fresh inputs: (\d+) calls, its state overflowed", note)
        assert made, note
        # the baseline's last call overflowed and was undone: the candidate makes the calls before it, no more
        assert f"the candidate's own stream: {made.group(1)} calls" in note, note
    upd = next(k for k in kernels if "tl.store(out_ptr0" in k.source and "16.0" in k.source)
    src = upd.source.replace("16.0", "17.0")
    assert src != upd.source
    wrong = session.evaluate(Candidate((upd.name,), src), perf=False)
    assert wrong.decision == "rejected", wrong.reason
