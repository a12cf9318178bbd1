"""Shape/dtype strategies around an example, and shape fuzzing of accepted kernels (dynamic and static)."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import given, strategies as st  # noqa: E402

from pytest_kernelopt.candidate import Candidate  # noqa: E402
from pytest_kernelopt.capture import capture  # noqa: E402
from pytest_kernelopt.errors import SubstitutionError  # noqa: E402
from pytest_kernelopt.strategies import (  # noqa: E402
    CandidateNotExercised,
    ShapeFuzzFailure,
    check_kernel_on_shapes,
    dtypes_around,
    inputs_like,
    interesting_sizes,
    replacements_for,
    shapes_around,
)

FAST = hypothesis.settings(max_examples=150, deadline=None, derandomize=True, database=None,
                           suppress_health_check=list(hypothesis.HealthCheck))


def _find(strategy, condition):
    # find() stops at the first hit; the budget only matters for rare sizes (127 under a 2048-element budget turns
    # up about 3 times in 1000 draws, and how often depends on which modules the process has imported, since
    # hypothesis mixes literals from loaded source into its draws): 10000 makes a miss vanishingly unlikely
    return hypothesis.find(strategy, condition, settings=hypothesis.settings(FAST, max_examples=10000))


# --------------------------------------------------------------------------- strategies (no compiling)


def test_importing_the_module_does_not_import_torch():
    code = "import sys, pytest_kernelopt.strategies; assert 'torch' not in sys.modules, 'torch imported eagerly'"
    subprocess.run([sys.executable, "-c", code], check=True)


@FAST
@given(shapes_around((8, 32, 5), max_numel=600))
def test_shapes_keep_rank_and_budget(shape):
    assert len(shape) == 3
    assert all(s >= 1 for s in shape)
    assert math.prod(shape) <= 600


def test_shapes_include_straddling_odd_and_unit_sizes():
    strat = shapes_around((16, 200), max_numel=2048)
    for size in (63, 64, 65, 127, 129):
        assert _find(strat, lambda s, size=size: s[1] == size)[1] == size
    assert _find(strat, lambda s: 1 in s)
    assert _find(strat, lambda s: s[0] == 16)[0] == 16 and _find(strat, lambda s: s[1] == 200)[1] == 200
    assert all(x % 2 for x in _find(strat, lambda s: s[0] % 2 == 1 and s[1] % 2 == 1 and s[0] > 1))
    assert set(interesting_sizes(200, bound=300)) >= {1, 3, 15, 17, 199, 200, 201, 255, 256, 257}
    assert max(interesting_sizes(200, bound=300)) <= 300
    assert interesting_sizes(5, bound=40, min_size=2)[0] == 2 and interesting_sizes(5, bound=1, min_size=2) == [1]


@FAST
@given(shapes_around((9, 33), min_size=2, max_numel=4096))
def test_min_size_leaves_out_unit_dims(shape):
    """For dynamic=True fuzzing: Dynamo specialises size-1 dims, so they never reach the dynamic kernel."""
    assert min(shape) >= 2 and math.prod(shape) <= 4096


@FAST
@given(shapes_around((9, 33, 4), min_size=2, max_numel=6))
def test_the_budget_wins_over_min_size(shape):
    assert math.prod(shape) <= 6 and len(shape) == 3


def test_shapes_shrink_toward_small():
    assert _find(shapes_around((64, 48)), lambda s: True) == (1, 1)
    big = _find(shapes_around((64, 48)), lambda s: math.prod(s) >= 100)
    assert math.prod(big) < 200, big  # shrunk close to the boundary, not a huge shape


def test_shapes_keep_fixed_and_empty_dims_and_refuse_an_impossible_budget():
    @FAST
    @given(shapes_around((0, 7, 12), fixed_dims=(-1,)))
    def check(shape):
        assert shape[0] == 0 and shape[2] == 12

    check()
    with pytest.raises(ValueError, match="max_numel"):
        shapes_around((64, 64), fixed_dims=(0, 1), max_numel=100)


def test_dtypes_shrink_to_the_example_and_respect_allow():
    assert _find(dtypes_around(torch.float16), lambda d: True) == torch.float16
    assert _find(dtypes_around(torch.float32), lambda d: d == torch.bfloat16) == torch.bfloat16
    assert _find(dtypes_around(torch.int32), lambda d: True) == torch.int32

    @FAST
    @given(dtypes_around(torch.float32, allow=(torch.float32, torch.float16)), dtypes_around(torch.int64))
    def check(f, i):
        assert f in (torch.float32, torch.float16)
        assert not i.is_floating_point and i != torch.bool

    check()


EXAMPLE = (torch.randn(4, 32), torch.randn(32), torch.randint(3, 9, (4, 1)), 0.5)


@FAST
@given(inputs_like(EXAMPLE, max_numel=512))
def test_inputs_like_keeps_structure_broadcasting_and_ranges(args):
    x, bias, idx, scale = args
    assert scale == 0.5
    assert x.dim() == 2 and bias.shape == (x.shape[1],), "equal example dims stay equal"
    assert idx.shape == (x.shape[0], 1), "size-1 (broadcast) dims are kept; 4 maps like x's 4"
    assert x.dtype == bias.dtype == torch.float32 and idx.dtype == torch.int64
    assert all(t.numel() <= 512 for t in (x, bias, idx))
    if idx.numel():
        assert 3 <= int(idx.min()) and int(idx.max()) <= 8, "integers stay in the example's range"
    torch.broadcast_shapes(x.shape, bias.shape, idx.shape)


def test_inputs_like_explores_sizes_and_values():
    strat = inputs_like(EXAMPLE, max_numel=512)
    assert _find(strat, lambda a: a[0].shape[0] == 1 and a[0].shape[1] > 1)
    assert _find(strat, lambda a: a[0].shape[1] in (63, 65))
    smallest = _find(strat, lambda a: True)
    assert smallest[0].shape == (1, 1), "shrinks toward the smallest inputs"
    a, b = _find(strat, lambda a: True), _find(strat, lambda a: True)
    assert torch.equal(a[0], b[0]), "values come from a drawn seed: reproducible"


@FAST
@given(inputs_like((torch.rand(6, 6) + 0.1, torch.randn(6, 3)), same_dtype=False, fixed_dims=[(1, 1)],
                   dtypes={torch.float32: (torch.float32, torch.float16)}))
def test_inputs_like_dtypes_fixed_dims_and_signs(args):
    sq, w = args
    assert sq.shape[0] == sq.shape[1] == w.shape[0], "all the 6s map to one size"
    assert w.shape[1] == 3, "fixed_dims keeps a weight-tied size"
    assert sq.dtype == w.dtype and sq.dtype in (torch.float32, torch.float16), "one dtype per example dtype"
    assert bool((sq >= 0).all()), "a non-negative example gives non-negative values"


# --------------------------------------------------------------------------- shape fuzzing of kernels


class ScaleShift(torch.nn.Module):
    def forward(self, x, y):
        return torch.sigmoid(x) * y + 1


X, Y = torch.randn(4, 32), torch.randn(32)
FUZZ = hypothesis.settings(max_examples=10, deadline=None, derandomize=True, database=None,
                           suppress_health_check=list(hypothesis.HealthCheck))


@pytest.fixture(scope="module")
def dynamic_kernel(backend):
    """The pointwise kernel Inductor generates for ScaleShift with dynamic shapes (xnumel is a run-time arg)."""
    cap = capture(ScaleShift(), (X, Y), backend=backend, dynamic=True)
    (name,) = cap.graphs[0].kernels
    src = cap.graphs[0].kernels[name].source
    assert "xmask = xindex < xnumel" in src and "ks0" in src, src
    return cap, name, src


def test_correct_candidate_passes_and_reports_its_use(dynamic_kernel, backend):
    cap, name, src = dynamic_kernel
    equivalent = src.replace("tl.sigmoid(tmp0)", "1.0 / (1.0 + tl.exp(-tmp0))")
    assert equivalent != src
    report = check_kernel_on_shapes(ScaleShift, (X, Y), replacements_for(cap, [Candidate((name,), equivalent)]),
                                    dynamic=True, settings=FUZZ, backend=backend)
    assert report.example_used
    assert report.examples == 10
    assert report.used >= report.examples // 2, report.summary()  # size-1 dims are not drawn for dynamic=True
    assert report.compile_hits and set(report.compile_hits) == {name}
    assert report.used_shapes and any("(4, 32)" not in s for s in report.used_shapes), "ran on new shapes"
    assert "candidate ran in" in report.summary()


def test_maskless_candidate_is_caught_on_a_shrunk_shape(dynamic_kernel, backend):
    """Dropping the mask is right whenever xnumel is a multiple of XBLOCK (the example: 4*32 = 128) only."""
    cap, name, src = dynamic_kernel
    maskless = src.replace(", xmask, eviction_policy", ", eviction_policy").replace(", xmask)", ")")
    assert maskless != src and "xmask)" not in maskless
    repl = replacements_for(cap, [Candidate((name,), maskless)])
    with pytest.raises(ShapeFuzzFailure) as info:
        check_kernel_on_shapes(ScaleShift, (X, Y), repl, dynamic=True, settings=FUZZ, backend=backend)
    failure = info.value
    x_shape, y_shape = failure.shapes
    assert failure.used is True
    assert y_shape == (x_shape[1],)
    assert math.prod(x_shape) % 128 != 0, "a shape the example did not cover"
    assert max(x_shape) <= 8, f"hypothesis shrank the failing shape: {x_shape}"
    message = str(failure)
    assert f"{x_shape} float32, {y_shape} float32" in message, message
    if backend.name == "cpu":
        assert "TritonOOBError" in message and "out of bounds" in message
    assert failure.report is not None and failure.report.used >= 1


def test_planted_odd_size_bug_is_caught(dynamic_kernel, backend):
    """A wrong result (not a crash) that only shows when the row length is odd."""
    cap, name, src = dynamic_kernel
    odd_bug = src.replace("tmp5 = tmp3 + tmp4", "tmp5 = tmp3 + tmp4 + (ks0 % 2).to(tl.float32)")
    assert odd_bug != src
    repl = replacements_for(cap, [Candidate((name,), odd_bug)])
    with pytest.raises(ShapeFuzzFailure, match=r"fails on shapes \(\(\d+, \d+\) float32") as info:
        check_kernel_on_shapes(ScaleShift, (X, Y), repl, dynamic=True, settings=FUZZ, backend=backend)
    x_shape, _ = info.value.shapes
    assert x_shape[1] % 2 == 1 and x_shape[1] > 1, x_shape
    assert re.search(r"Mismatched elements|not close", str(info.value)), str(info.value)


def test_static_shapes_only_check_the_lookup_path_and_say_so(backend):
    x = torch.randn(8, 16)
    cap = capture(torch.nn.Tanh(), (x,), backend=backend)
    (name,) = cap.graphs[0].kernels
    src = cap.graphs[0].kernels[name].source
    repl = replacements_for(cap, [Candidate((name,), src + "\n# a no-op edit\n")])
    small = hypothesis.settings(FUZZ, max_examples=3)
    shapes = inputs_like((x,), max_numel=256)
    with pytest.raises(CandidateNotExercised, match="dynamic=True") as info:
        check_kernel_on_shapes(torch.nn.Tanh, (x,), repl, settings=small, inputs=shapes, backend=backend)
    report = info.value.report
    assert report.example_used and report.examples == 3 and report.used == 0
    assert "DID NOT RUN" not in report.summary()


def test_a_candidate_that_never_matches_cannot_pass_silently(dynamic_kernel, backend):
    cap, name, src = dynamic_kernel
    repl = {"0" * 64: Candidate((name,), src)}
    with pytest.raises(CandidateNotExercised, match="did not even run on the example"):
        check_kernel_on_shapes(ScaleShift, (X, Y), repl, dynamic=True, backend=backend,
                               settings=hypothesis.settings(FUZZ, max_examples=2))


def test_fusion_candidates_are_refused(dynamic_kernel):
    cap, name, _ = dynamic_kernel
    from pytest_kernelopt.candidate import LaunchSpec

    spec = LaunchSpec(kernel="k", args=(), grid="(1,)")
    with pytest.raises(SubstitutionError, match="fusion"):
        replacements_for(cap, [Candidate((name, name), "", launch=spec)])


def test_st_is_usable_with_given_directly():
    """The documented pattern composes: inputs_like inside st.tuples / flatmap like any strategy."""

    @FAST
    @given(st.tuples(inputs_like(torch.zeros(3, 5)), st.integers(0, 3)))
    def check(pair):
        (t,), k = pair
        assert t.dim() == 2 and 0 <= k <= 3

    check()
