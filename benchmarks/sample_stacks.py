"""Run a command and dump the Python stacks of it and every process it starts, every few seconds.

For a run that stalls where nothing prints (an evaluation worker inside a gate): each Python process started under
it registers ``faulthandler`` on SIGUSR1 (through a ``sitecustomize`` put first on ``PYTHONPATH``), writing to a
file of its own under the stacks folder, forked children included; this script sends SIGUSR1 to the command's
process tree every ``--every`` seconds.  Only processes that registered are signalled (a process that has not yet
reached ``sitecustomize`` would die of the signal).

    python benchmarks/sample_stacks.py --every 30 --dir OUT/stacks -- python benchmarks/gate_activity.py ...

Afterwards ``STACKS/<pid>.txt`` holds each process's dumps, each headed by its time since the start.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SITECUSTOMIZE = '''
import faulthandler, os, signal, sys, time
_dir = os.environ["KO_STACKS_DIR"]
def _register():
    f = open(os.path.join(_dir, f"{os.getpid()}.txt"), "a", buffering=1)
    f.write(f"== pid {os.getpid()} started {time.time():.1f}: {' '.join(sys.argv)[:300]}\\n")
    globals()["_f"] = f
    faulthandler.register(signal.SIGUSR1, file=f, all_threads=True, chain=False)
    open(os.path.join(_dir, f"{os.getpid()}.ready"), "w").close()
_register()
os.register_at_fork(after_in_child=_register)
'''


def _tree(root: int) -> list[int]:
    """The pids of root and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=float, default=30.0)
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    a.dir.mkdir(parents=True, exist_ok=True)
    site = a.dir / "_site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ, KO_STACKS_DIR=str(a.dir.resolve()),
               PYTHONPATH=os.pathsep.join(filter(None, [str(site.resolve()), os.environ.get("PYTHONPATH")])))
    t0 = time.time()
    proc = subprocess.Popen(cmd, env=env)
    while proc.poll() is None:
        try:
            proc.wait(timeout=a.every)
            break
        except subprocess.TimeoutExpired:
            pass
        for pid in _tree(proc.pid):
            if (a.dir / f"{pid}.ready").exists():
                try:
                    with open(a.dir / f"{pid}.txt", "a") as f:
                        f.write(f"\n-- at {time.time() - t0:.0f} s\n")
                    os.kill(pid, signal.SIGUSR1)
                except OSError:
                    pass
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
