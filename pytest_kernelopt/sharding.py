"""``--kernelopt-shard K/N``: split the tests (and problem files) over N CI hosts, deterministically.

A test belongs to shard ``1 + sha256(node id) mod N``.  The choice depends on
the node id alone (not on the order, the number of tests collected or the
host), so every host computes the same split without talking to the others,
and over the N shards every test runs exactly once.  Node ids are relative
to pytest's rootdir: run the shards from the same checkout layout.  Under
pytest-xdist each worker deselects the same tests (it collects the same ids).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Sequence

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` -> (K, N) with 1 <= K <= N; ValueError saying what is wrong otherwise."""
    m = _SHARD.fullmatch(str(text))
    if not m:
        raise ValueError(f"kernelopt shard must be K/N (e.g. 2/4), got {text!r}")
    k, n = int(m.group(1)), int(m.group(2))
    if n < 1 or not 1 <= k <= n:
        raise ValueError(f"kernelopt shard K/N needs 1 <= K <= N, got {text!r}")
    return k, n


def shard_of(nodeid: str, n: int) -> int:
    """The shard (1..n) a node id belongs to."""
    return 1 + int.from_bytes(hashlib.sha256(nodeid.encode("utf-8")).digest()[:8], "big") % n


def split(items: Sequence[Any], k: int, n: int) -> tuple[list[Any], list[Any]]:
    """(selected, deselected) pytest items for shard k of n, in their collected order."""
    selected, deselected = [], []
    for item in items:
        (selected if shard_of(item.nodeid, n) == k else deselected).append(item)
    return selected, deselected


def apply_shard(config: Any, items: list, shard: str | None) -> str | None:
    """Deselect the items of other shards in place (pytest_collection_modifyitems); returns a summary line."""
    if not shard:
        return None
    k, n = parse_shard(shard)
    selected, deselected = split(items, k, n)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
    return f"kernelopt shard {k}/{n}: {len(selected)} of {len(selected) + len(deselected)} collected tests"
