"""``--kernelopt-shard K/N``: every test (and problem file) in exactly one of N shards, the same on every host."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from pytest_kernelopt.config import Settings
from pytest_kernelopt.sharding import apply_shard, assign, collected_digest, parse_shard, split

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = sorted(str(p.relative_to(REPO)) for d in ("benchmarks/problems", "examples/problems")
                  for p in (REPO / d).glob("*.py") if not p.name.startswith("_"))


class Item:
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


def test_parse_shard():
    assert parse_shard("2/4") == (2, 4) and parse_shard(" 1 / 1 ") == (1, 1)
    for bad in ("0/4", "5/4", "1/0", "2", "a/b", "1/2/3", "-1/2", ""):
        with pytest.raises(ValueError):
            parse_shard(bad)
    assert Settings().with_overrides({"shard": "3/8"}).shard == "3/8"
    with pytest.raises(ValueError, match="K/N"):
        Settings().with_overrides({"shard": "9/8"})


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 16])
def test_every_problem_in_exactly_one_shard(n):
    ids = PROBLEMS + [f"tests/test_models.py::test_block[{i}]" for i in range(200)]
    assert len(ids) > 200 and len(set(ids)) == len(ids)
    shards = [split([Item(i) for i in ids], k, n)[0] for k in range(1, n + 1)]
    seen = Counter(item.nodeid for shard in shards for item in shard)
    assert set(seen) == set(ids) and set(seen.values()) == {1}
    for k, shard in enumerate(shards, 1):  # collection order kept, deselected = the rest
        selected, deselected = split([Item(i) for i in ids], k, n)
        assert [x.nodeid for x in selected] == [i for i, s in zip(ids, assign(ids, n)) if s == k]
        assert len(selected) + len(deselected) == len(ids)
    sizes = [len(s) for s in shards]
    assert max(sizes) - min(sizes) <= 1, sizes  # dealt round-robin: as even as can be


def test_split_depends_on_the_collected_ids_alone_not_their_order_or_the_process():
    ids = [f"t.py::test[{i}]" for i in range(100)]
    whole = dict(zip(ids, assign(ids, 5)))
    # another collection order: each test stays in its shard, and the collected set has the same digest
    assert {x.nodeid for x in split([Item(i) for i in reversed(ids)], 2, 5)[0]} == {i for i in ids if whole[i] == 2}
    assert collected_digest(list(reversed(ids))) == collected_digest(ids) != collected_digest(ids[1:])
    # another process with another hash seed (python's hash() would differ; sha256 does not)
    code = "import sys; from pytest_kernelopt.sharding import assign; print(assign(sys.argv[1:], 5))"
    out = subprocess.run([sys.executable, "-c", code, *ids], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "123"}).stdout
    assert out.strip() == str([whole[i] for i in ids])


def test_the_bench_suite_over_four_hosts():
    ids = [f"{p}::{Path(p).stem}" for p in PROBLEMS if p.startswith("benchmarks/")]  # as pytest names them
    assert len(ids) > 40
    sizes = Counter(assign(ids, 4))
    assert sorted(sizes) == [1, 2, 3, 4] and max(sizes.values()) - min(sizes.values()) <= 1, sizes


class Hook:
    def __init__(self) -> None:
        self.deselected: list = []

    def pytest_deselected(self, items):
        self.deselected += items


def test_apply_shard_deselects_in_place_and_says_what_it_kept():
    config = type("Config", (), {"hook": Hook()})()
    items = [Item(f"t.py::test[{i}]") for i in range(10)]
    line = apply_shard(config, items, "1/3")
    assert len(items) == 4 and len(config.hook.deselected) == 6
    assert line == f"kernelopt shard 1/3: 4 of 10 collected tests (collected set " \
                   f"{collected_digest([f't.py::test[{i}]' for i in range(10)])}: the same on every host of the run)"
    assert apply_shard(config, items, None) is None and len(items) == 4


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST") and k != "PYTEST_ADDOPTS"}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300, env=env)


def test_pytest_runs_each_test_in_exactly_one_shard_also_under_xdist(tmp_path):
    (tmp_path / "test_many.py").write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.parametrize("i", range(30))
        def test_p(i):
            pass

        def test_plain():
            pass
    """))
    ran: dict[int, set[str]] = {}
    for k in (1, 2, 3):
        proc = _pytest(tmp_path, "-q", "-rA", "--kernelopt-mode=off", f"--kernelopt-shard={k}/3", "test_many.py")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        ran[k] = set(re.findall(r"^PASSED (\S+)", proc.stdout, re.M))
        assert f"{30 + 1 - len(ran[k])} deselected" in proc.stdout
    every = {f"test_many.py::test_p[{i}]" for i in range(30)} | {"test_many.py::test_plain"}
    assert set.union(*ran.values()) == every and sum(map(len, ran.values())) == len(every)
    assert all(ran.values())
    # two xdist workers collect and deselect alike: the same tests run as without xdist
    proc = _pytest(tmp_path, "-n", "2", "-rA", "--kernelopt-shard", "2/3", "test_many.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert set(re.findall(r"PASSED (\S+)", proc.stdout)) == ran[2]
    bad = _pytest(tmp_path, "--kernelopt-shard=4/3", "test_many.py")
    assert bad.returncode == 4 and "K/N" in bad.stderr


def test_problem_files_split_over_shards(tmp_path):
    """--kernelopt-problems: each problem file of the bench suite collected in exactly one shard."""
    problems = REPO / "examples" / "problems"
    got: list[str] = []
    for k in (1, 2):
        proc = _pytest(REPO, "--collect-only", "-q", "--kernelopt-mode=off", f"--kernelopt-shard={k}/2",
                       "--kernelopt-problems", str(problems), str(problems))
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        got += [line for line in proc.stdout.splitlines() if "::" in line]
    names = sorted(p.name for p in problems.glob("*.py") if not p.name.startswith("_"))
    assert sorted(Counter(g.split("::")[0].rsplit("/", 1)[-1] for g in got)) == names
    assert len(got) == len(set(got))
