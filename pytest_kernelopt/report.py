"""Reports: the terminal table and the JSON document, for the CLI and the pytest plugin."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterable

from . import __version__
from .jsonio import write_json as write_document


def _fmt_speedup(outcome_kernel: Any) -> str:
    r = outcome_kernel.result
    if r is None:
        return "-"
    g = r.gate("performance")
    if g is None or not g.numbers.get("measured"):
        return "not measured"
    n = g.numbers
    return f"{n['speedup']:.3f}x [{n['ci_low']:.3f}, {n['ci_high']:.3f}]"


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, ending in "..." where it was cut."""
    return text if len(text) <= width else text[: max(0, width - 3)] + "..."


def kernel_rows(outcomes: Iterable[Any]) -> list[list[str]]:
    rows = []
    for o in outcomes:
        for k in o.kernels:
            failed = sorted({r.failed_gate.gate for r in k.tried if r.failed_gate is not None})
            rows.append([o.name, cut(k.kernel, 48), k.kind, k.decision, k.proposer, _fmt_speedup(k),
                         ",".join(failed) or "-", cut(k.note, 70)])
    return rows


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def _measured(o: Any) -> bool:
    return bool(getattr(o, "measured", getattr(o, "backend", "") == "cuda"))


def render_outcomes(outcomes: list[Any], backend_description: str, failed: Iterable[dict[str, str]] = ()) -> str:
    header = ["problem", "kernel", "kind", "decision", "proposer", "speedup [CI]", "failed gates", "note"]
    rows = kernel_rows(outcomes)
    lines = [table(rows, header), ""] if rows else []
    per = [(o.name, o.speedup) for o in outcomes if _measured(o)]
    unmeasured = [o.name for o in outcomes if not _measured(o)]
    if per:
        lines.append("module speedups: " + ", ".join(f"{n} {s:.3f}x" for n, s in per))
        gm = math.exp(sum(math.log(max(s, 1e-9)) for _, s in per) / len(per))
        improved = sum(1 for _, s in per if s > 1.0)
        lines.append(f"geometric mean over {len(per)} problems (baseline kept = 1.0x): {gm:.3f}x; "
                     f"{improved} improved")
    if unmeasured:
        lines.append(f"module speedups: not measured ({', '.join(unmeasured)})")
    lines.append(f"backend: {backend_description}")
    if unmeasured:
        lines.append("performance was not measured on this machine (no GPU): kernels were checked for "
                     "correctness only and nothing was accepted for speed; nothing was written to the cache "
                     "either (it records only decisions measured on a GPU), so the next run searches again")
    for o in outcomes:  # in full, not cut to a table cell
        for err in getattr(o, "proposer_errors", ()):
            lines.append(f"WARNING: {o.name}: the {o.proposer} proposer could not run: {err}")
    failed = list(failed)
    for f in failed:
        lines.append(f"FAILED: {f['problem']}: {f['error']}")
    if failed:
        lines.append(f"{len(failed)} problem(s) failed (listed above); exit status 1")
    return "\n".join(lines)


def outcome_to_json(o: Any) -> dict[str, Any]:
    return {
        "name": o.name, "backend": o.backend, "proposer": o.proposer, "seconds": o.seconds,
        "profile_s": getattr(o, "profile_s", None),
        "speedup": o.speedup if _measured(o) else None, "measured": _measured(o),
        "proposer_errors": list(getattr(o, "proposer_errors", ())), "note": o.note,
        "joint": o.joint.to_json() if o.joint else None,
        "profile": o.profile.to_json() if hasattr(o.profile, "to_json") else None,
        "kernels": [{"kernel": k.kernel, "graph": k.graph, "kind": k.kind, "decision": k.decision,
                     "proposer": k.proposer, "note": k.note, "speedup": k.speedup, "phases": k.phases,
                     "winner": k.winner.to_json() if k.winner else None,
                     "result": k.result.to_json() if k.result else None,
                     "tried": [r.to_json() for r in k.tried]} for k in o.kernels],
    }


#: what the ``meta`` object of both JSON reports (``pytest --kernelopt-report``, ``kernelopt bench --report``) holds
#: first: which report it is, the pytest-kernelopt version, the mode and backend, and whether the run reached the end
#: of what it was given (``complete``: false when it was interrupted or stopped early, and for bench when a problem
#: failed) or was ``interrupted`` (Ctrl-C).  tests/test_plugin.py and tests/test_new_user.py check both reports.
META_KEYS = ("report", "version", "mode", "backend", "complete", "interrupted")


def report_meta(report: str, mode: str, backend: str, *, complete: bool, interrupted: bool,
                **extra: Any) -> dict[str, Any]:
    """A JSON report's ``meta``: :data:`META_KEYS`, then what is particular to ``report`` (``pytest`` or ``bench``)."""
    return {"report": report, "version": __version__, "mode": mode, "backend": backend, "complete": complete,
            "interrupted": interrupted, **extra}


def write_json(path: str | Path, outcomes: list[Any], meta: dict[str, Any],
               failed: Iterable[dict[str, str]] = (), settings: dict[str, Any] | None = None) -> None:
    """The bench report: ``meta`` (:func:`report_meta`), the ``settings``, ``problems`` that ran, ``failed`` ones
    with their error."""
    write_document(path, {"meta": meta, "settings": settings, "problems": [outcome_to_json(o) for o in outcomes],
                          "failed": list(failed)})
