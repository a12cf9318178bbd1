"""``--kernelopt-shard K/N``: split the tests (and problem files) over N CI hosts, deterministically.

The collected tests are ordered by the sha256 of their node id and dealt out
round-robin: the test of rank r goes to shard ``1 + r mod N``.  Every host
that collects the same tests (same checkout, same command line) computes the
same split without talking to the others; over the N shards every test runs
exactly once, and shard sizes differ by at most one (a plain ``hash mod N``
split gave 21 and 8 problems to two of four hosts for the 51 bench problems).
The summary line names the collected set by a digest, so CI logs show at a
glance whether two hosts collected alike.  Node ids are relative to pytest's
rootdir: run the shards from the same checkout layout.  pytest-xdist workers
of one shard collect the same ids (xdist checks it), so they deselect alike.
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


def _rank_key(nodeid: str) -> tuple[bytes, str]:
    return hashlib.sha256(nodeid.encode("utf-8")).digest(), nodeid


def assign(nodeids: Sequence[str], n: int) -> list[int]:
    """The shard (1..n) of each node id, in the given order: ranked by sha256, dealt round-robin."""
    order = sorted(range(len(nodeids)), key=lambda i: (_rank_key(nodeids[i]), i))
    shards = [0] * len(nodeids)
    for rank, i in enumerate(order):
        shards[i] = 1 + rank % n
    return shards


def collected_digest(nodeids: Sequence[str]) -> str:
    """A short digest of the collected set (order-free): equal on two hosts that collected the same tests."""
    return hashlib.sha256("\n".join(sorted(nodeids)).encode("utf-8")).hexdigest()[:12]


def split(items: Sequence[Any], k: int, n: int) -> tuple[list[Any], list[Any]]:
    """(selected, deselected) pytest items for shard k of n, in their collected order."""
    selected: list[Any] = []
    deselected: list[Any] = []
    for item, shard in zip(items, assign([item.nodeid for item in items], n)):
        (selected if shard == k else deselected).append(item)
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
    every = [item.nodeid for item in selected + deselected]
    return (f"kernelopt shard {k}/{n}: {len(selected)} of {len(every)} collected tests (collected set "
            f"{collected_digest(every)}: the same on every host of the run)")
