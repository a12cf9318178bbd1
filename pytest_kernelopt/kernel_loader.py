"""Build a kernel module from checked source, in a namespace the harness constructs itself.

A candidate is data.  :func:`load_kernel_module` first proves the source is
made only of allowed shapes (:func:`pytest_kernelopt.allowlist.check_source`;
it refuses anything else, so no path can load unchecked code), then:

* binds each allowed import's name to the object the harness imports itself
  (the candidate's import statements are never executed);
* executes what is left -- Inductor's driver call, numeric ``tl.constexpr``
  constants and ``@triton.jit`` definitions whose decorator arguments are
  literals -- in a fresh module whose builtins are only those a kernel body
  may name (:data:`~pytest_kernelopt.allowlist.BUILTINS`);
* writes the source to a private folder and sets ``__file__`` to it, so that
  ``inspect.getsource`` (which Triton uses) and Inductor's per-kernel autotune
  cache find it there, whatever path the source may name.

The private folder is removed when the process exits.  A worker process makes its folder inside its parent's
(``KERNELOPT_KERNEL_DIR``, set by the first process that makes one), so the parent's exit removes a worker's folder
too where the worker was killed and could not remove its own
(tests/test_plugin.py::test_the_summary_names_the_proposer_and_an_unenforced_perf_gate).

The module is never put in ``sys.modules`` or Inductor's code cache.
"""

from __future__ import annotations

import ast
import atexit
import builtins
import hashlib
import importlib
import itertools
import linecache
import os
import shutil
import tempfile
import threading
import types
from pathlib import Path
from typing import Any

from .allowlist import BUILTINS, IMPORTS, AllowlistError, check_source, import_bindings

_LOCK = threading.Lock()
_COUNTER = itertools.count()
_DIR: Path | None = None
# ``set`` for the ``autotune_hints=set()`` Inductor writes in decorator arguments (the allowlist refuses it in bodies)
SAFE_BUILTINS = {name: getattr(builtins, name) for name in BUILTINS | {"set"}}


#: the folder of the first process that loaded a kernel, for the processes it starts (see the module docstring)
DIR_ENV = "KERNELOPT_KERNEL_DIR"


def private_dir() -> Path:
    """This process's folder of kernel sources (made on first use, removed at exit)."""
    global _DIR
    with _LOCK:
        if _DIR is None:
            parent = os.environ.get(DIR_ENV)
            _DIR = Path(tempfile.mkdtemp(prefix="kernelopt-kernels-",
                                         dir=parent if parent and os.path.isdir(parent) else None))
            if not (parent and os.path.isdir(parent)):
                os.environ[DIR_ENV] = str(_DIR)  # the workers this process starts make theirs inside it
            atexit.register(shutil.rmtree, _DIR, ignore_errors=True)
    return _DIR


def _bind(module: str, name: str) -> Any:
    """What an allowed import line binds, imported by the harness (``module`` and ``name`` come from IMPORTS)."""
    if not module:
        return importlib.import_module(name)
    mod = importlib.import_module(module)
    try:
        return getattr(mod, name)
    except AttributeError:
        return importlib.import_module(f"{module}.{name}")


def load_kernel_module(source: str, name: str = "kernel") -> types.ModuleType:
    """The kernel module of ``source``, built by the harness; raises AllowlistError for anything not allowed."""
    tree = check_source(source)
    bindings: dict[str, Any] = {}
    body = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for triple in import_bindings(node):
                if triple not in IMPORTS:  # check_source refused it already; never reached
                    raise AllowlistError(f"import {triple} not allowed")
                module, attr, binding = triple
                bindings[binding] = _bind(module, attr)
        else:
            body.append(node)
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    with _LOCK:
        n = next(_COUNTER)
    path = private_dir() / f"k{n}_{digest}.py"
    path.write_text(source)
    filename = str(path)
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    mod = types.ModuleType(f"kernelopt_candidate_{name}_{n}")
    mod.__dict__.update(bindings)
    mod.__dict__.update({"__file__": filename, "__builtins__": dict(SAFE_BUILTINS)})
    code = compile(ast.Module(body=body, type_ignores=[]), filename, "exec")
    exec(code, mod.__dict__)  # noqa: S102 (only the checked shapes above are left in ``body``)
    return mod
