"""``kernelopt bench --compare-modes``, the command: which problems to run (resuming a results folder: the
problems done there are skipped), each measured (:mod:`.measure`), and the results folder rewritten after every
problem (:mod:`.render`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import torch
import triton

from .. import __version__
from ..backends import Backend
from ..config import Settings
from ..optimize import ProblemOutcome
from ..report import write_json as write_report
from ..workflow import release_memory
from .measure import MAX_ROUNDS, PRECISION, autotune_has_cd, error_text, measure_problem
from .modes import KEPT_NOTE, NOT_MEASURED, key_of
from .render import Progress, done_line, final_lines, write_results

DEFAULT_OUT = "benchmarks/results/compare_modes"
RESULTS = "compare_modes"


def run_compare_modes(args: argparse.Namespace, settings: Settings, backend: Backend, problems: list[Path],
                      proposer: str) -> int:
    """``kernelopt bench --compare-modes``: returns the exit status (1 if a problem failed, 2 if nothing could
    start)."""
    if settings.training:
        print("kernelopt bench --compare-modes: times inference (forward) only; drop --training", file=sys.stderr)
        return 2
    out_dir = Path(args.out or DEFAULT_OUT)
    json_path, md_path, png_path = (out_dir / f"{RESULTS}.{ext}" for ext in ("json", "md", "png"))
    paths = (json_path, md_path, png_path)
    doc = load_results(json_path)
    gpu = gpu_name(backend)
    was = doc.get("meta", {}).get("gpu")
    if gpu is not None and was and was != gpu and any(r.get("backend") == "cuda" for r in doc["problems"]):
        # one results folder, one GPU: the records are compared and averaged together, and a rerun would resume
        # (skip the problems done) on another card
        print(f"kernelopt bench --compare-modes: {json_path} holds records timed on {was}; this GPU is {gpu}. "
              "Give this GPU its own --out folder", file=sys.stderr)
        return 2
    measured = bool(backend.measures_time)
    not_measured = "" if measured else not_measured_note(backend)
    doc["meta"] = {**doc.get("meta", {}), **run_meta(settings, backend, proposer, not_measured)}
    if gpu is not None:
        doc["meta"]["gpu"] = gpu
    done_before = done_records(doc, backend, settings)
    skip = {"done"} | ({"failed"} if args.skip_failed else set())
    redo = {n.strip() for v in (getattr(args, "redo", None) or ()) for n in v.split(",") if n.strip()}
    unknown = sorted(redo - {p.stem for p in problems})
    if unknown:
        print(f"kernelopt bench --compare-modes: --redo names no problem given: {', '.join(unknown)}", file=sys.stderr)
        return 2
    for p in problems:
        if p.stem in redo:
            done_before.pop(key_of(p), None)
    todo = [p for p in problems if done_before.get(key_of(p)) not in skip]
    print(f"compare modes: {len(problems) - len(todo)} of {len(problems)} problem(s) already in {json_path} "
          f"(skipped); {len(todo)} to run" + ("" if measured else f"; {NOT_MEASURED}: {not_measured}"), flush=True)
    outcomes: list[ProblemOutcome] = []
    progress = Progress(len(problems))
    start = time.perf_counter()
    stopped = False
    for i, path in enumerate(problems, 1):
        key = key_of(path)
        progress.start(i, path.stem)
        if done_before.get(key) in skip:
            progress.step(f"skipped ({done_before[key]} in {json_path.name})")
            progress.finish(ran=False)
            continue
        if args.stop_after is not None and time.perf_counter() - start > args.stop_after:
            progress.step(f"not started: --stop-after {args.stop_after:g}s reached (a rerun resumes here)")
            stopped = True
            break
        print(f"[{i}/{len(problems)}] {path} ...", flush=True)
        rec = run_one(path, settings, backend, args, progress, outcomes)
        upsert(doc, rec)
        write_results(doc, backend.name, *paths)
        progress.finish()
        if rec["status"] == "done":
            print(done_line(rec, measured), flush=True)
    mine = [r for r in doc["problems"] if r.get("backend") == backend.name]
    status = {r["problem"]: r.get("status") for r in mine}
    failed = [r for r in mine if r["problem"] in {key_of(p) for p in problems} and r.get("status") != "done"]
    doc["meta"]["complete"] = not stopped and all(status.get(key_of(p)) == "done" for p in problems)
    chart = write_results(doc, backend.name, *paths)
    for line in final_lines(doc, backend.name, chart, paths, time.perf_counter() - start):
        print(line)
    if args.report:
        write_report(args.report, outcomes, {"backend": backend.description, "proposer": proposer,
                                             "version": __version__, "complete": not failed,
                                             "problems": len(problems), "failed": len(failed)},
                     failed=[{"problem": r["problem"], "error": r.get("error", "")} for r in failed])
    if failed:
        print(f"kernelopt bench: {len(failed)} of {len(problems)} problem(s) failed", file=sys.stderr)
    return 1 if failed else 0


def run_one(path: Path, settings: Settings, backend: Backend, args: argparse.Namespace, progress: Progress,
            outcomes: list[ProblemOutcome]) -> dict[str, Any]:
    """One problem measured into its record (its search's outcome added to ``outcomes``); a failure is recorded
    and the run goes on."""
    t0 = time.perf_counter()
    try:
        rec = measure_problem(path, settings, backend, use_cache=not args.no_cache,
                              say=lambda m: print(f"    {m}", flush=True), step=progress.step)
        outcome = rec.pop("outcome", None)
        if outcome is not None:
            outcomes.append(outcome)
    except (Exception, SystemExit) as e:  # one problem's failure is recorded and the run goes on
        rec = {"problem": key_of(path), "name": path.stem, "backend": backend.name,
               "measured": bool(backend.measures_time), "status": "failed", "error": error_text(e),
               "traceback": "".join(traceback.format_exception(type(e), e, e.__traceback__)[-6:])}
        print(f"    ERROR: {error_text(e)}", flush=True)
    finally:
        with contextlib.suppress(Exception):
            release_memory()
    rec["seconds"] = round(time.perf_counter() - t0, 2)
    return rec


def not_measured_note(backend: Backend) -> str:
    """Why nothing is timed on this backend."""
    return (("no GPU (the CPU backend runs Inductor's Triton code in the Triton interpreter)" if backend.name != "cuda"
             else f"this process may not time on the GPU ({backend.description})")
            + ": correctness only (eager, default and ours compiled and checked against eager); run and compile "
            "times are not measured, and the max-autotune modes, which tune for a GPU, are neither compiled nor timed")


def run_meta(settings: Settings, backend: Backend, proposer: str, not_measured: str) -> dict[str, Any]:
    """What the results folder records of this run (its ``meta``, over the one it had)."""
    return {"backend_description": backend.description, "backend": backend.name,
            "version": __version__, "torch": torch.__version__, "triton": triton.__version__,
            "proposer": proposer, "samples": max(2, settings.perf_samples), "warmup": settings.perf_warmup,
            "rounds": MAX_ROUNDS, "precision": PRECISION,
            "confidence": settings.confidence, "max_autotune_includes_cd": autotune_has_cd(),
            "not_measured": not_measured, "kept_baseline": KEPT_NOTE, "complete": False,
            "compile_mode": settings.compile_mode}


# --------------------------------------------------------------------------- results file, resume


def gpu_name(backend: Backend) -> str | None:
    """The GPU a run times on (None on the CPU): the results folder records it, one GPU a folder."""
    if backend.name != "cuda":
        return None
    return torch.cuda.get_device_name()


def load_results(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {"meta": {}, "problems": []}
    try:
        doc = json.loads(path.read_text())
        if not isinstance(doc.get("problems"), list):
            raise ValueError("no problems list")
        return doc
    except (ValueError, AttributeError) as e:
        raise SystemExit(f"kernelopt bench: {path} is not a compare-modes results file ({e}); move it away "
                         "or choose another --out") from None


def done_records(doc: dict[str, Any], backend: Backend, settings: Settings) -> dict[str, str | None]:
    """Each problem's status in the folder: a record counts only for this backend and this compile mode of ours
    (another mode's is measured again and replaced: give each mode its own --out to keep both)."""
    return {r["problem"]: r.get("status") for r in doc["problems"] if r.get("backend") == backend.name
            and r.get("ours_compile_mode", "default") == settings.compile_mode}


def upsert(doc: dict[str, Any], rec: dict[str, Any]) -> None:
    doc["problems"] = [r for r in doc["problems"]
                       if (r.get("problem"), r.get("backend")) != (rec["problem"], rec["backend"])] + [rec]
