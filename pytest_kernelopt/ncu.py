"""Nsight Compute metrics for a module's Triton kernels, when ``ncu`` is on the machine.

``ncu`` profiles a whole process, so the module is rebuilt in a child process
from its :class:`~pytest_kernelopt.problems.ProblemSpec` (a problem file, or
the pickled module the fixture made), compiled as the user compiles it, warmed
up, and one call is profiled between ``cudaProfilerStart`` and
``cudaProfilerStop``.  The clocks are left as the card runs them
(``--clock-control none``).  The result is per kernel name: the measured
duration, DRAM bytes and throughput, SM throughput, achieved occupancy and
registers per thread.  When ``ncu`` is missing, or the run fails, the caller
gets a :class:`NcuReport` that says why and holds no metrics: the profile goes
on with the torch.profiler numbers alone.
"""

from __future__ import annotations

import csv
import glob
import io
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

# ncu metric name -> our short name
METRICS: dict[str, str] = {
    "gpu__time_duration.sum": "duration_ns",
    "dram__bytes_read.sum": "dram_read_bytes",
    "dram__bytes_write.sum": "dram_write_bytes",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_throughput_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_throughput_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "launch__registers_per_thread": "registers_per_thread",
}


@dataclass(frozen=True)
class NcuReport:
    """Metrics per kernel name (averaged over its launches in the profiled call), or why there are none."""

    available: bool
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    note: str = ""

    def for_kernel(self, name: str) -> dict[str, float] | None:
        return self.metrics.get(name)


def find_ncu() -> str | None:
    """``ncu`` on PATH, ``$KERNELOPT_NCU``, or the usual install locations."""
    explicit = os.environ.get("KERNELOPT_NCU")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu"):
        hits = sorted(glob.glob(pattern))
        if hits and os.access(hits[-1], os.X_OK):
            return hits[-1]
    return None


def _number(text: str) -> float | None:
    text = text.strip().replace(",", "")
    if not text or text.lower() in ("n/a", "nan"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def parse_ncu_csv(text: str) -> dict[str, dict[str, float]]:
    """Parse ``ncu --csv --page raw`` output: a header row, a units row, then one row per kernel launch.

    Lines before the header (the profiled program's own output, ``==PROF==``
    messages) are skipped.  Several launches of one kernel are averaged, except
    durations and byte counts, which are summed (the kernel's total in the call).
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"') and "Kernel Name" in line), None)
    if start is None:
        return {}
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header = rows[0]
    if "Kernel Name" not in header:
        return {}
    name_col = header.index("Kernel Name")
    cols = {METRICS[h]: i for i, h in enumerate(header) if h in METRICS}
    sums: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    summed = ("duration_ns", "dram_read_bytes", "dram_write_bytes")
    for row in rows[1:]:
        if len(row) <= name_col or not row[0].strip().isdigit():  # the units row, or a trailing message
            continue
        name = row[name_col].split("(")[0].strip()
        acc = sums.setdefault(name, {})
        counts[name] = counts.get(name, 0) + 1
        for short, i in cols.items():
            v = _number(row[i]) if i < len(row) else None
            if v is not None:
                acc[short] = acc.get(short, 0.0) + v
    out: dict[str, dict[str, float]] = {}
    for name, acc in sums.items():
        n = counts[name]
        out[name] = {k: (v if k in summed else v / n) for k, v in acc.items()}
        out[name]["launches"] = float(n)
    return out


def collect(spec: Any, kernel_names: list[str], *, training: bool = False, timeout: float = 300.0,
            ncu: str | None = None) -> NcuReport:
    """Run the module of ``spec`` under ``ncu`` in a child process and return the metrics of ``kernel_names``."""
    ncu = ncu or find_ncu()
    if ncu is None:
        return NcuReport(False, note="ncu not found (PATH, KERNELOPT_NCU): Nsight Compute metrics not collected")
    if spec is None:
        return NcuReport(False, note="the module does not pickle, so ncu cannot rebuild it in a child process")
    if not kernel_names:
        return NcuReport(False, note="no Triton kernels to profile")
    with tempfile.TemporaryDirectory(prefix="kernelopt-ncu-") as tmp:
        spec_path = os.path.join(tmp, "spec.pkl")
        with open(spec_path, "wb") as f:
            pickle.dump((spec, training), f)
        regex = "regex:^(" + "|".join(sorted(set(kernel_names))) + ")$"
        cmd = [ncu, "--clock-control", "none", "--profile-from-start", "off", "--csv", "--page", "raw",
               "--metrics", ",".join(METRICS), "-k", regex, sys.executable, "-m", "pytest_kernelopt.ncu_target",
               spec_path]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return NcuReport(False, note=f"ncu did not finish in {timeout:.0f}s: metrics not collected")
        except OSError as e:
            return NcuReport(False, note=f"ncu could not start: {e}")
    metrics = parse_ncu_csv(proc.stdout)
    if proc.returncode != 0 or not metrics:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-3:]
        return NcuReport(False, note=f"ncu exited {proc.returncode} with no metrics: {' | '.join(tail)[:400]}")
    missing = sorted(set(kernel_names) - set(metrics))
    note = "Nsight Compute, one profiled call, --clock-control none"
    if missing:
        note += f"; not seen by ncu: {', '.join(missing)}"
    return NcuReport(True, metrics, note)
