"""Every environment variable the package, its scripts and CI read is documented in docs/environment.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_environment_variable_read_is_documented():
    sources = [*(ROOT / "pytest_kernelopt").rglob("*.py"), *(ROOT / "scripts").glob("*"), ROOT / ".ci" / "run"]
    read = {m for f in sources if f.is_file() for m in re.findall(r"KERNELOPT_[A-Z0-9_]*[A-Z0-9]", f.read_text())}
    assert len(read) > 10, read  # the scan found the package's variables
    documented = set(re.findall(r"`(KERNELOPT_[A-Z0-9_]+)`", (ROOT / "docs" / "environment.md").read_text()))
    assert read <= documented, sorted(read - documented)
