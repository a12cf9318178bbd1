"""A candidate may not write where the kernel it replaces only reads (red team 26).

Red team 26 kept a call counter in the low mantissa bits of a float32 table the kernel reads through ``in_ptr1``:
a graph constant (``torch.tensor(...)`` written in ``forward``, which Inductor lifts and owns) and a tensor held by
a plain Python object the module keeps (no parameter, buffer or tensor attribute of an ``nn.Module``).  Neither is
an input, module state or an allocation of the call, so no digest covered it; the kernel cleared the bits before
use, was exact on every call the judge made and verified 4 of 4 times, and wrong at 43-50% of positions from the
200th call of a loop.  Every launch of a candidate in the correctness gate is now checked: each pointer Inductor
names ``in_ptrN`` (less its ``mutated_arg_names``) must hold the same bits, all of its storage, after the launch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.config import Settings  # noqa: E402
from pytest_kernelopt.gates.cascade import EvaluationSession  # noqa: E402
from pytest_kernelopt.graph import TritonKernel  # noqa: E402
from pytest_kernelopt.problems import ProblemSpec, build_problem  # noqa: E402
from pytest_kernelopt.substitute import read_only_params, whole_storage  # noqa: E402

RT = Path(__file__).resolve().parent / "adversarial" / "redteam26"
CASES = {  # problem: (candidate, the kernel it replaces)
    "hidden": ("cand_counter", "triton_poi_fused_mul_relu_0"),
    "const_in_forward": ("cand_const_in_forward", "triton_poi_fused_lift_fresh_mul_relu_0"),
}


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Each test builds its own session."""
    yield


def _session(name: str, backend) -> EvaluationSession:
    problem = build_problem(ProblemSpec.from_file(RT / f"{name}.py"), backend.device, 0)
    return EvaluationSession(problem, Settings(mode="optimize"), backend)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_counter_kept_in_a_read_only_table_is_refused_and_the_kernel_itself_passes(name, backend):
    session = _session(name, backend)
    cand_name, kernel = CASES[name]
    found = {n: k for g in session.captured.graphs for n, k in g.kernels.items()}
    assert kernel in found, f"{kernel} not among {sorted(found)}"
    own = session.evaluate(Candidate((kernel,), found[kernel].source, origin="control"), perf=False)
    assert own.failed_gate is None, own.reason  # the baseline's own kernel writes only its out_ptr
    res = session.evaluate(Candidate((kernel,), (RT / f"{cand_name}.py").read_text(), origin="red-team-26"),
                           perf=False)
    assert res.decision == "rejected" and res.failed_gate.gate == "correctness", res.reason
    assert "writes to memory the kernel it replaces only reads" in res.reason, res.reason
    assert res.failed_gate.numbers["wrote_read_only"] == [f"in_ptr1 of {kernel}"]


def _kernel(params, source=""):
    sig = {p: "*fp32" for p in params if "ptr" in p} | {"xnumel": "i32", "XBLOCK": "constexpr"}
    return TritonKernel("k", source, "pointwise", "pointwise", tuple(params), sig, "cuda")


def test_read_only_pointers_are_the_in_ptrs_less_those_inductor_says_it_mutates():
    params = ("in_out_ptr0", "in_ptr0", "in_ptr1", "out_ptr0", "in_ptr2", "xnumel", "XBLOCK")
    assert read_only_params(_kernel(params)) == ((1, "in_ptr0"), (2, "in_ptr1"), (4, "in_ptr2"))
    meta = "inductor_meta={'kernel_name': 'k', 'mutated_arg_names': ['in_out_ptr0', 'in_ptr1'], 'x': 1}"
    assert read_only_params(_kernel(params, meta)) == ((1, "in_ptr0"), (4, "in_ptr2"))


def test_the_check_covers_all_of_a_views_storage():
    base = torch.arange(12, dtype=torch.float32)
    view = base[4:6]
    flat = whole_storage(view)
    assert flat.numel() == 12 and flat.dtype == torch.int32
    flat[0] = 1  # a write outside the view's own elements is a write to its storage
    assert base[0].item() != 0.0
    odd = whole_storage(torch.zeros(3, dtype=torch.uint8))
    assert odd.numel() == 3 and odd.dtype == torch.uint8


class _Swap:
    def __init__(self):
        self.launches, self.wrote_read_only = 0, set()
        self.guard = lambda t: hash(t.cpu().numpy().tobytes())


class _Writes:
    """A stand-in kernel object: its launch adds 1 to the tensors at the given argument positions."""

    def __init__(self, *positions):
        self.positions = positions

    def run(self, *args, **kwargs):
        for i in self.positions:
            args[i].add_(1)


def test_a_launch_is_checked_against_its_read_only_arguments_not_storage_it_also_writes():
    from pytest_kernelopt.substitute import _Counted

    ro = ((0, "in_ptr0"), (1, "in_ptr1"))
    swap = _Swap()
    a, b, out = torch.zeros(4), torch.zeros(4), torch.zeros(4)
    _Counted(_Writes(2), swap, "k", ro).run(a, b, out, 4)
    assert swap.wrote_read_only == set() and swap.launches == 1
    _Counted(_Writes(1, 2), swap, "k", ro).run(a, b, out, 4)
    assert swap.wrote_read_only == {"in_ptr1 of k"}
    # slices of one buffer, read through in_ptr0 and written through out_ptr0 (a concatenation's kernels)
    buf = torch.zeros(8)
    swap = _Swap()
    _Counted(_Writes(2), swap, "k", ro).run(buf[:4], torch.zeros(4), buf[4:], 4)
    assert swap.wrote_read_only == set()
    swap.guard = None  # outside the correctness gate nothing is digested
    _Counted(_Writes(0), swap, "k", ro).run(a, b, out, 4)
    assert swap.wrote_read_only == set() and swap.launches == 2
