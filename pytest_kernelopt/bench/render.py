"""Rendering ``kernelopt bench --compare-modes``' records: the geometric means, the markdown table, the chart, the
results files and the lines printed while it runs.  Records in, text and files out: nothing here imports torch (the
records are plain data, :mod:`.measure` makes them)."""

from __future__ import annotations

import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ..jsonio import atomic_write, write_json
from .modes import AUTOTUNE_MODES, BASELINES, FLOOR, KEPT_NOTE, LABELS, MODES, NOT_MEASURED, SHORT


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-12)) for v in values) / len(values))


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Geometric means of ours over each baseline (all done problems, and those with Triton kernels)."""
    out: dict[str, Any] = {}
    done = [r for r in records if r.get("status") == "done"]
    for b in BASELINES:
        rows = [(r["name"], r["speedup"][b]["x"], r.get("triton_kernels", 0)) for r in done
                if isinstance(r.get("speedup", {}).get(b), dict) and "x" in r["speedup"][b]]
        if not rows:
            out[b] = NOT_MEASURED
            continue
        worst = min(rows, key=lambda t: t[1])
        entry: dict[str, Any] = {"geomean": round(geomean([s for _, s, _ in rows]), 4), "problems": len(rows),
                                 "min": round(worst[1], 4), "min_problem": worst[0],
                                 "below_floor": sorted(n for n, s, _ in rows if s < FLOOR)}
        triton = [s for _, s, k in rows if k]
        if triton:
            entry["geomean_with_triton_kernels"] = round(geomean(triton), 4)
            entry["problems_with_triton_kernels"] = len(triton)
        out[b] = entry
    return out



# --------------------------------------------------------------------------- markdown and chart


def _cell_ms(v: Any) -> str:
    if isinstance(v, (int, float)):
        return f"{v:.4g}"
    return NOT_MEASURED if v == NOT_MEASURED else "-"


def _cell_s(v: Any) -> str:
    if isinstance(v, (int, float)):
        return f"{v:.1f}"
    return NOT_MEASURED if v == NOT_MEASURED else "-"


def _cell_speed(v: Any) -> str:
    if not isinstance(v, dict):
        return NOT_MEASURED if v == NOT_MEASURED else "-"
    if "x" not in v:
        return f"failed ({v.get('error', '?')[:60]})"
    if v.get("kept") and "ci" not in v:
        return f"{v['x']:.3f}x (kept)"
    lo, hi = v.get("ci", (None, None))
    return f"{v['x']:.3f}x [{lo:.3f}, {hi:.3f}]" + (" (kept)" if v.get("kept") else "")


def _cell_correct(rec: dict[str, Any]) -> str:
    bad, failed = [], []
    for m in MODES[1:]:
        mr = rec["modes"].get(m, {})
        if mr.get("error"):
            failed.append(f"{SHORT[m]} failed: {mr['error'][:80]}")
        elif mr.get("correct") is False:
            bad.append(f"{SHORT[m]} differs ({mr.get('differs', '')[:60]})")
    correct = [m for m in MODES[1:] if rec["modes"].get(m, {}).get("correct") is True]
    match = [SHORT[m] for m in correct if not rec["modes"][m].get("as_accurate_as_eager")]
    accurate = [SHORT[m] for m in correct if rec["modes"][m].get("as_accurate_as_eager")]
    parts = ([f"{', '.join(match)} match eager"] if match else []) + (
        [f"{', '.join(accurate)} beyond eager's tolerance, as accurate as eager against float64"] if accurate else [])
    text = "; ".join(bad + failed + parts) or "-"
    return text.replace("|", "/")


def _cell_aa(rec: dict[str, Any]) -> str:
    aa = rec.get("timer_aa")
    if not isinstance(aa, dict):
        return "-"  # not timed, or timed before the A/A control existed
    if "x" not in aa:
        return f"failed ({aa.get('error', '?')[:60]})"
    return _cell_speed(aa)


def aa_summary(records: list[dict[str, Any]]) -> str | None:
    """One line on the timer's A/A control across the problems that have one (None where none has)."""
    rows = [(r["name"], r["timer_aa"]) for r in records if r.get("status") == "done"
            and isinstance(r.get("timer_aa"), dict) and "x" in r["timer_aa"]]
    if not rows:
        return None
    worst = max(rows, key=lambda t: abs(math.log(t[1]["x"])))
    excl = [n for n, a in rows if not a["ci"][0] <= 1.0 <= a["ci"][1]]
    return (f"- the timer's A/A (the default column's function timed again in a slot of its own): geomean "
            f"{geomean([a['x'] for _, a in rows]):.3f}x across {len(rows)} problem(s), farthest from 1.0x "
            f"{worst[1]['x']:.3f}x ({worst[0]}); "
            + (f"its interval excludes 1.0x on {len(excl)}: {', '.join(excl)}" if excl
               else "every interval includes 1.0x"))


def _cfg(c: Any) -> str:
    if not c:
        return "-" if c is None else "kept"
    return ", ".join(f"{k}={v}" for k, v in c.items() if v is not None)


def _proposers(records: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """The proposer of the records, or of each share of them where runs with different proposers wrote them (a
    ``--proposer none`` rerun times the cache's decisions again without searching)."""
    counts: dict[str, int] = {}
    for r in records:
        if r.get("status") == "done":
            counts[r.get("proposer") or "?"] = counts.get(r.get("proposer") or "?", 0) + 1
    if len(counts) <= 1:
        return next(iter(counts), meta.get("proposer", "?"))
    return ", ".join(f"{p} ({n} problems{': the cache timed again, no search' if p == 'none' else ''})"
                     for p, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def render_markdown(doc: dict[str, Any], backend_name: str, chart_note: str) -> str:
    """The results as markdown: what was run and how, the table, the geometric means, max-autotune's other picks,
    where the search time went, the failed problems."""
    meta = doc.get("meta", {})
    records = [r for r in doc["problems"] if r.get("backend") == backend_name]
    done = [r for r in records if r.get("status") == "done"]
    failed = [r for r in records if r.get("status") != "done"]
    lines = _header(meta, records, backend_name, others=len(doc["problems"]) - len(records))
    lines += _table(done) + _geomeans(records, meta) + _picks(done) + _phases(done)
    if failed:
        lines += ["", "## Failed problems", ""]
        lines += [f"- {r['name']} ({r['problem']}): {r.get('error', '?')}".replace("\n", " ") for r in failed]
    lines += ["", f"Chart: {chart_note}", ""]
    return "\n".join(lines)


def _header(meta: dict[str, Any], records: list[dict[str, Any]], backend_name: str, others: int) -> list[str]:
    """What was run, and how it was timed and compiled."""
    done = [r for r in records if r.get("status") == "done"]
    failed = [r for r in records if r.get("status") != "done"]
    lines = ["# kernelopt bench --compare-modes", "",
             f"- backend: {meta.get('backend_description', backend_name)}",
             f"- pytest-kernelopt {meta.get('version', '?')}, torch {meta.get('torch', '?')}, "
             f"triton {meta.get('triton', '?')}; proposer {_proposers(records, meta)}",
             f"- problems: {len(done)} done, {len(failed)} failed"
             + ("" if meta.get("complete") else " (incomplete: a rerun resumes)")]
    if meta.get("not_measured"):
        lines.append(f"- **performance not measured**: {meta['not_measured']}")
    else:
        lines.append(f"- timing: the performance gate's timer (CUDA events, L2 flushed, interleaved ABBA), "
                     f"{meta.get('samples', '?')} samples a mode"
                     + (f", and as many again (at most {meta['rounds']} rounds) while ours' interval against a "
                        f"compiled mode is wider than {meta['precision']:.0%} (each problem's count: "
                        f"`modes.*.samples` in the JSON)" if meta.get("rounds") else "")
                     + f", median ms; speedups are ours over the baseline with a {meta.get('confidence', 0.95):.0%} "
                       "paired-bootstrap interval; each timed call follows an untimed call of its own mode and the "
                       "order rotates, so every mode takes every slot (records without a timer A/A cell were timed "
                       "before that, in plain ABBA order: on the H200 the default column, always in the middle, "
                       "timed up to 6% behind max-autotune's with the same kernels)")
        if meta.get("compile_mode", "default") == "default":
            lines.append(f"- {KEPT_NOTE}")
        if meta.get("max_autotune_includes_cd"):
            lines.append("- this torch's `max-autotune-no-cudagraphs` already turns coordinate descent on: the MA and "
                         "MA+CD columns are one configuration, compiled and timed once")
    mode = meta.get("compile_mode", "default")
    if mode != "default":
        lines.append(f"- **ours starts from the `{mode}` compile** (`--compile-mode {mode}`): our kernels are tuned "
                     "and gated against that baseline; a problem where ours applied nothing is that compile, timed "
                     "as its own column")
    lines.append(f"- compile s: a cold compile (Inductor's caches off) and the first call; ours = {mode} compile + "
                 "loading our kernels; search s: this run's bench (cache re-verification and search)")
    bars = sorted({r["min_speedup"] for r in records if isinstance(r.get("min_speedup"), (int, float))})
    if bars:
        lines.append("- the performance gate's bar (`min_speedup`, the lower confidence bound a kernel of ours had to "
                     "reach): " + (f"{bars[0]:g}" if len(bars) == 1 else
                                   "per problem (`min_speedup` in the JSON): " + ", ".join(f"{b:g}" for b in bars))
                     + (f"; {sum('min_speedup' not in r for r in records)} record(s) from before it was recorded "
                        "(1.02)" if any("min_speedup" not in r for r in records) else ""))
    if others:
        lines.append(f"- {others} record(s) of another backend are kept in the JSON and not shown here")
    return lines


def _table(done: list[dict[str, Any]]) -> list[str]:
    """One row a problem done."""
    lines = ["", "| problem | Triton kernels | ours applied | search s | compile s default / MA / MA+CD | "
                  "eager ms | default ms | MA ms | MA+CD ms | ours ms | ours vs eager | ours vs default | "
                  "ours vs MA | ours vs MA+CD | timer A/A | correctness |",
              "|---" * 16 + "|"]
    for r in done:
        m = r["modes"]
        comp = " / ".join(_cell_s(m[k].get("compile_s")) if not m[k].get("error") else "failed"
                          for k in ("default", "max-autotune", "max-autotune+cd"))
        lines.append("| " + " | ".join([
            r["name"], str(r.get("triton_kernels", "-")), str(len(r.get("applied", []))), _cell_s(r.get("search_s")),
            comp, *(_cell_ms(m[k].get("ms")) for k in MODES),
            *(_cell_speed(r.get("speedup", {}).get(b)) for b in BASELINES), _cell_aa(r), _cell_correct(r)]) + " |")
    return lines


def _geomeans(records: list[dict[str, Any]], meta: dict[str, Any]) -> list[str]:
    """Ours over each baseline, across the problems, and the timer's A/A."""
    lines = ["", "## Geometric means of ours over each baseline", ""]
    summary = summarize(records)
    for b in BASELINES:
        s = summary[b]
        if not isinstance(s, dict):
            lines.append(f"- over {LABELS[b]}: {NOT_MEASURED}")
            continue
        text = (f"- over {LABELS[b]}: **{s['geomean']:.3f}x** across {s['problems']} problem(s)"
                + (f" ({s['geomean_with_triton_kernels']:.3f}x across the {s['problems_with_triton_kernels']} with "
                   "Triton kernels)" if "geomean_with_triton_kernels" in s else "")
                + f"; lowest {s['min']:.3f}x ({s['min_problem']})")
        if b in AUTOTUNE_MODES:
            text += (f"; below {FLOOR}x: {', '.join(s['below_floor'])}" if s["below_floor"]
                     else f"; none below {FLOOR}x")
        lines.append(text)
    if summary["default"] != NOT_MEASURED and meta.get("compile_mode", "default") == "default":
        lines.append(f"- kept baselines count 1.0x over default compile ({KEPT_NOTE})")
    if (aa_line := aa_summary(records)) is not None:
        lines.append(aa_line)
    return lines


def _picks(done: list[dict[str, Any]]) -> list[str]:
    """Where max-autotune's autotuner picked another launch config than the default compile's."""
    lines: list[str] = []
    picks = [(r["name"], p) for r in done for p in r.get("autotune_picks") or ()
             if p.get("max-autotune") != p.get("default")]
    if picks:
        lines += ["", "## Where max-autotune's autotuner picked another launch config", "",
                  "| problem | kernel | default | max-autotune | ours |", "|---|---|---|---|---|"]
        for name, p in picks:
            lines.append(f"| {name} | {p['kernel']} | {_cfg(p.get('default'))} | {_cfg(p.get('max-autotune'))} | "
                         f"{_cfg(p.get('ours')) if p.get('ours') else 'kept'}"
                         f"{' (' + p['ours_edit'] + ')' if p.get('ours') and p.get('ours_edit') else ''} |")
    return lines


def _phases(done: list[dict[str, Any]]) -> list[str]:
    """Where each problem's search time went."""
    lines: list[str] = []
    spent = [(r["name"], r.get("search_s"), ph) for r in done if (ph := search_phases(r))]
    if spent:
        lines += ["", "## Where the search time went (s)", "",
                  "The last four are parts of the screening and the gates, not more time: worker_starts, waiting "
                  "for a judge worker to start and capture the module (a fresh one for each screening round and "
                  "each candidate); truths, the float64 truths' runs and noise floors (once a problem, in its first "
                  "gate); transfer, reading and decoding what workers send (records of outputs above all); "
                  "judging, the judge's own statistics on those records. None of the four overlaps another",
                  "",
                  "| problem | search | " + " | ".join(PHASES) + " |", "|---" * (len(PHASES) + 2) + "|"]
        for name, total, ph in spent:
            lines.append(f"| {name} | {_cell_s(total)} | " + " | ".join(_cell_s(ph.get(k)) for k in PHASES) + " |")
    return lines


PHASES = ("profile", "autotune_picks", "looped_variants", "screening", "gates", "worker_starts", "truths", "transfer",
          "judging")


def search_phases(rec: dict[str, Any]) -> dict[str, float]:
    """Seconds of a problem's search by phase: the profile, then each phase summed over its kernels ({} when the
    record has none: nothing searched, or a record written before phases were kept)."""
    out: dict[str, float] = {}
    if rec.get("profile_s"):
        out["profile"] = float(rec["profile_s"])
    for k in rec.get("kernels") or ():
        for phase, sec in (k.get("phases") or {}).items():
            out[phase] = round(out.get(phase, 0.0) + float(sec), 2)
    return out if any(v for v in out.values()) else {}


def write_chart(records: list[dict[str, Any]], path: Path) -> str:
    """Speedup of ours per problem over both max-autotune modes, sorted; returns what was done, in words."""
    rows = []
    for r in records:
        sp = r.get("speedup", {}) if r.get("status") == "done" else {}
        vals = [sp.get(b, {}).get("x") if isinstance(sp.get(b), dict) else None for b in AUTOTUNE_MODES]
        if any(v is not None for v in vals):
            rows.append((r["name"], *vals))
    try:  # the optional extra [plot]: looked for only when a chart is drawn
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    missing = "matplotlib not installed (pip install pytest-kernelopt[plot])"
    if not rows:
        return "chart skipped: no speedup over max-autotune was measured" + ("" if plt else f"; {missing}")
    if plt is None:
        return f"chart skipped: {missing}"
    rows.sort(key=lambda t: (t[2] if t[2] is not None else t[1] or 0.0))
    n = len(rows)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.38 * n + 2), 4.8))
    xs = range(n)
    w = 0.4
    for k, (b, color) in enumerate(zip(AUTOTUNE_MODES, ("#4c72b0", "#dd8452"))):
        # bars from 1.0: a gain goes up, a loss down
        ax.bar([i + (k - 0.5) * w for i in xs], [t[1 + k] - 1.0 if t[1 + k] is not None else 0.0 for t in rows],
               w, bottom=1.0, label=f"ours over {LABELS[b]}", color=color)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(FLOOR, color="red", linewidth=0.8, linestyle="--", label=f"{FLOOR}x")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([t[0] for t in rows], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup (median ms of baseline / ours)")
    ax.set_title("kernelopt vs max-autotune, per problem (sorted)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"{path.name} ({n} problem(s))"


# --------------------------------------------------------------------------- files and lines printed


def write_results(doc: dict[str, Any], backend_name: str, json_path: Path, md_path: Path, png_path: Path) -> str:
    """The results folder rewritten whole: the chart of this backend's records, the JSON, the markdown; returns
    what became of the chart, in words."""
    chart = write_chart([r for r in doc["problems"] if r.get("backend") == backend_name], png_path)
    doc["meta"]["chart"] = chart
    write_json(json_path, doc)
    atomic_write(md_path, render_markdown(doc, backend_name, chart))
    return chart


def done_line(rec: dict[str, Any], measured: bool) -> str:
    """What is printed when a problem is done: ours over each baseline, or (not measured) its correctness."""
    if measured:
        shown = ", ".join(f"vs {SHORT[b]} {_cell_speed(rec['speedup'][b])}" for b in BASELINES)
    else:
        shown = f"correctness: {_cell_correct(rec)}; timing {NOT_MEASURED}"
    return f"    done in {rec['seconds']:.1f}s: {shown}"


def final_lines(doc: dict[str, Any], backend_name: str, chart: str, paths: tuple[Path, Path, Path],
                seconds: float) -> list[str]:
    """What is printed at the end: the markdown, where the results are, the total time."""
    json_path, md_path, png_path = paths
    drawn = png_path.is_file() and chart.startswith(png_path.name)
    return ["", render_markdown(doc, backend_name, chart),
            f"results: {json_path}, {md_path}" + (f", {png_path}" if drawn else f" ({chart})"),
            f"total {seconds:.1f}s"]


class Progress:
    """A progress bar on stderr: one line per step, with elapsed time and an estimate of what is left."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total, self.stream = total, stream or sys.stderr
        self.t0 = time.perf_counter()
        self.durations: list[float] = []
        self.index, self.name, self.started = 0, "", self.t0

    def start(self, index: int, name: str) -> None:
        self.index, self.name, self.started = index, name, time.perf_counter()
        self.step("starting")

    def finish(self, ran: bool = True) -> None:
        if ran:
            self.durations.append(time.perf_counter() - self.started)

    def step(self, what: str) -> None:
        done = self.index - 1
        width = 24
        fill = int(width * done / max(1, self.total))
        elapsed = time.perf_counter() - self.t0
        left = self.total - done
        eta = f", ~{_dur(statistics.mean(self.durations) * left)} left" if self.durations else ""
        print(f"[{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} {self.name}: {what} "
              f"({_dur(elapsed)} elapsed{eta})", file=self.stream, flush=True)


def _dur(s: float) -> str:
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"
