"""Shared set-up of the session 34 red team scripts (CPU interpreter): a session over a problem source, kernel edits."""
import sys, re, time, tempfile, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import torch
from pytest_kernelopt.backends import prepare, select_backend
prepare("auto")
backend = select_backend("auto")
from pytest_kernelopt.config import Settings
from pytest_kernelopt.gates.cascade import EvaluationSession
from pytest_kernelopt.problems import ProblemSpec, build_problem
from pytest_kernelopt.candidate import Candidate

HERE = pathlib.Path(__file__).resolve().parent


def write_problem(name, src):
    d = pathlib.Path(tempfile.mkdtemp(prefix="s34_"))
    p = d / f"{name}.py"
    p.write_text(src)
    return p


def session_of(path, seeds=6, base_seed=None):
    problem = build_problem(ProblemSpec.from_file(path), backend.device, 0)
    return EvaluationSession(problem, Settings(seeds=seeds, base_seed=base_seed), backend)


def kernels(session):
    return {n: g.kernels[n] for g, n in session.captured.triton_kernels}


def judge(session, name, src, label):
    t0 = time.time()
    res = session.evaluate(Candidate((name,), src, origin="s34"), perf=False)
    print(f"[{label}] decision: {res.decision} ({time.time() - t0:.0f}s)")
    for g in res.gates:
        print(f"   {g.gate:12s} {g.status:6s} {(g.reason or '')[:400]}")
    c = res.gate("correctness")
    if c is not None:
        print("   numbers:", {k: c.numbers.get(k) for k in ("provenance", "checks_skipped", "structure_probes_compared",
                                                        "loop_calls_compared", "seed_list", "rounds", "loop_note")})
    return res


def launch_like_inductor(src, name, args, grid_x, XBLOCK):
    """Not used by the gates: for demos."""
    raise NotImplementedError


def demo(session, name, src, cases, model):
    """The candidate run inside the compiled module (as the gates run it) on each (label, inputs) of ``cases``, against
    the eager ``model``: how wrong it is on each."""
    from pytest_kernelopt.substitute import swapped
    with torch.no_grad():
        for label, inputs in cases:
            ref = model(*inputs)
            with swapped(session.captured, [Candidate((name,), src, origin="s34")]):
                out = session.captured.compiled(*inputs)
            out = out[0] if isinstance(out, (tuple, list)) else out
            err = (out - ref).abs()
            print(f"   demo {label}: max abs err {err.max().item():.4f}, {(err > 1e-3).float().mean().item():.0%} "
                  "of entries off")
