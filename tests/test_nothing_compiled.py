"""A module Inductor compiles to nothing (an LSTM or GRU is one ATen call) passes in every mode and says so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
GRU = '''
import torch, torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 16, batch_first=True)

    def forward(self, x):
        return self.gru(x)[0]

def get_inputs():
    return [torch.randn(2, 5, 8)]

def get_init_inputs():
    return []
'''


def _run(tmp_path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env=env)


@pytest.mark.parametrize("mode", ["verify", "optimize"])
def test_a_gru_passes_with_a_note_in_pytest(tmp_path, mode):
    (tmp_path / "gru_model.py").write_text(GRU)
    proc = _run(tmp_path, "-m", "pytest", "-p", "no:cacheprovider", f"--kernelopt-mode={mode}",
                "--kernelopt-problems", "gru_model.py", "--rootdir", str(tmp_path))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "1 passed" in out
    assert "have no Triton kernel to check or optimize (Inductor compiled nothing" in out and "gru_model" in out


def test_a_gru_in_kernelopt_capture_and_bench(tmp_path):
    (tmp_path / "gru_model.py").write_text(GRU)
    cap = _run(tmp_path, "-m", "pytest_kernelopt.cli", "capture", "gru_model.py")
    assert cap.returncode == 0 and "Inductor generated no code for this module" in cap.stdout, cap.stdout
    bench = _run(tmp_path, "-m", "pytest_kernelopt.cli", "bench", "gru_model.py", "--no-cache")
    assert bench.returncode == 0, bench.stdout + bench.stderr
    # no speedup is printed where nothing was measured (the CPU backend); a GPU measures the module's 1.000x
    assert "ERROR" not in bench.stdout and ("gru_model 1.000x" in bench.stdout
                                            or "module speedups: not measured (gru_model)" in bench.stdout)
