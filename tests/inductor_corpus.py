"""Real Inductor-generated Triton kernels, for tests that must hold for every kernel Inductor emits.

``tests/data/inductor_kernels/<torch version>-<device>/`` holds one file per kernel
(``<module>__<kernel>.py``, the kernel module's source exactly as Inductor wrote it) and an
``index.json`` (module, kernel name, kind, heuristic, graph role; modules that failed, with
their errors).  ``benchmarks/collect_inductor_kernels.py`` writes a folder; run it on another
torch version or on a GPU to add one.  Usage::

    from inductor_corpus import corpus

    @pytest.mark.parametrize("kid,name,source", corpus(), ids=[c[0] for c in corpus()])
    def test_every_kernel(kid, name, source): ...

Pure file reading: no torch import.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "inductor_kernels"


def _kernel_names(folder: Path) -> dict[str, str]:
    """File name -> kernel name, from the folder's index.json (empty if it has none)."""
    index = folder / "index.json"
    if not index.is_file():
        return {}
    return {k["file"]: k["kernel"] for k in json.loads(index.read_text()).get("kernels", [])}


@functools.lru_cache(maxsize=None)
def _corpus(root: str) -> tuple[tuple[str, str, str], ...]:
    base = Path(root)
    out: list[tuple[str, str, str]] = []
    if not base.is_dir():
        return ()
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        names = _kernel_names(folder)
        for f in sorted(folder.glob("*.py")):
            # <module>__<kernel>.py: module names never hold "__"; kernel names may ("fused__softmax")
            name = names.get(f.name) or (f.stem.split("__", 1)[1] if "__" in f.stem else f.stem)
            out.append((f"{folder.name}/{f.stem}", name, f.read_text()))
    return tuple(out)


def corpus(root: Path | str = DATA) -> list[tuple[str, str, str]]:
    """(id, kernel name, source) of every collected kernel in every subfolder, sorted by id.

    ``id`` is ``<torch version>-<device>/<module>__<kernel>``: unique, stable, usable as a pytest id.
    """
    return list(_corpus(str(root)))


if __name__ == "__main__":
    items = corpus()
    folders = sorted({i.split("/", 1)[0] for i, _, _ in items})
    print(f"{len(items)} kernels in {len(folders)} folder(s): {', '.join(folders)}")
