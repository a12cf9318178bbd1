"""Files written whole: readers see the old content or the new, never part of it.

:func:`write_json` is the one writer of JSON documents (the pytest and bench reports, cache bundles and
retirement notes, the trust records); :func:`atomic_write` the one way any of them reaches the disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def fsync_dir(path: str | Path) -> None:
    """Make a rename in ``path`` durable (best effort: some filesystems cannot sync a directory)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str | Path, data: str | bytes) -> None:
    """Write a file so that readers see the old content or the new, never part of it (a temporary sibling,
    fsynced, then renamed over ``path``); the parent folder is made if missing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".tmp-{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def dumps(doc: Any, *, indent: int | None = 2, sort_keys: bool = False, default: Any = str) -> str:
    """``doc`` as the JSON text :func:`write_json` writes (UTF-8, a final newline)."""
    return json.dumps(doc, indent=indent, sort_keys=sort_keys, ensure_ascii=False, default=default) + "\n"


def write_json(path: str | Path, doc: Any, *, indent: int | None = 2, sort_keys: bool = False,
               default: Any = str) -> None:
    """Write ``doc`` as JSON to ``path``, atomically (values JSON cannot hold are written as ``str(value)``)."""
    atomic_write(path, dumps(doc, indent=indent, sort_keys=sort_keys, default=default))
