"""The package's import structure (pyproject.toml, [tool.importlinter]; CI runs lint-imports after mypy): no import
circle, the layers the contracts state, lazy imports included.  And what the entry points import at their top stays
light: `pytest --help` and `kernelopt --help` load no torch, triton or openai."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept():
    pytest.importorskip("importlinter")
    proc = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                           "sys.exit(lint_imports(no_cache=True, no_logo=True))"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout, proc.stdout[-4000:]


def test_the_entry_points_import_no_torch_triton_or_openai():
    code = ("import sys, pytest_kernelopt.plugin, pytest_kernelopt.cli; "
            "heavy = sorted({'torch', 'triton', 'openai'} & set(sys.modules)); assert not heavy, heavy")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
