"""Where a process tree spent its time, from benchmarks/sample_stacks.py's dumps: a sampling profile.

For every dump of every process, the main thread's innermost frames inside the package (``pytest_kernelopt/``)
are counted, as the innermost one alone and as the innermost ``--depth`` of them joined; printed per process
(its command line and dump count), most frequent first.  With ``--every 0.5`` a count of 10 is about 5 s.

    python benchmarks/stack_summary.py STACKS_DIR [--depth 3] [--top 25] [--merge TEXT]
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+) in (\S+)')


def _dumps(text: str) -> list[list[tuple[str, str]]]:
    """Each dump's main-thread frames (innermost first) as (file tail, function)."""
    out = []
    for part in re.split(r"\n-- at [0-9.]+ s\n", text)[1:]:
        block = part.split("Current thread", 1)[-1].split("\n\nThread ", 1)[0]
        frames = [(m.group(1), m.group(3)) for line in block.splitlines() if (m := FRAME.match(line))]
        if frames:  # (a process blocked where the signal's dump is not written leaves an empty one)
            out.append(frames)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--merge", default="", help="also sum the processes whose command line holds this text")
    a = ap.parse_args()
    texts = {p: p.read_text(errors="replace") for p in sorted(a.dir.glob("*.txt"))}
    groups = [(t.splitlines()[0] if t else "", _dumps(t)) for t in texts.values()]
    if a.merge:
        merged = [d for t in texts.values() if a.merge in t.split("\n", 1)[0] for d in _dumps(t)]
        groups.append((f"== every process whose command line holds {a.merge!r}", merged))
    for head, dumps in groups:
        if not dumps:
            continue
        inner: collections.Counter = collections.Counter()
        chains: collections.Counter = collections.Counter()
        for frames in dumps:
            ours = [f"{Path(f).name}:{fn}" for f, fn in frames if "pytest_kernelopt/" in f]
            inner[ours[0] if ours else (f"{Path(frames[0][0]).name}:{frames[0][1]}" if frames else "?")] += 1
            chains[" < ".join(ours[:a.depth])] += 1
        print(f"\n## {head[:200]}  ({len(dumps)} dumps)")
        print("innermost frame in the package:")
        for k, n in inner.most_common(a.top):
            print(f"  {n:5d}  {k}")
        print(f"innermost {a.depth} frames in the package:")
        for k, n in chains.most_common(a.top):
            print(f"  {n:5d}  {k}")


if __name__ == "__main__":
    main()
