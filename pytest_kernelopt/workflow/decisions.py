"""What one run decided, kernel by kernel -- the cache's decisions first, then the search's -- and the
:class:`~pytest_kernelopt.records.RunRecord` made of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..records import KernelRecord, RunRecord, outcome_record
from ..tuner import can_search

if TYPE_CHECKING:
    from ..candidate import Candidate
    from ..graph import KernelGraph
    from ..optimize import ProblemOutcome


@dataclass
class Decisions:
    records: list[KernelRecord] = field(default_factory=list)
    applied: list[Candidate] = field(default_factory=list)  # in place in the compiled module
    regressions: list[str] = field(default_factory=list)
    # (graph index, kernel or fused label) the cache decided, and after a search those written to the cache:
    # never searched in this run, never counted as without a cache entry
    cached: set[tuple[int, str]] = field(default_factory=set)

    def add(self, graph: int, label: str, record: KernelRecord) -> None:
        """A cache entry's decision for ``label`` (a regression's note is also the run's regression)."""
        self.cached.add((graph, label))
        self.records.append(record)
        if record.decision == "regression":
            self.regressions.append(record.note)

    def apply(self, graph: int, names: tuple[str, ...], candidate: Candidate, record: KernelRecord) -> None:
        """A cache entry re-verified and put in place: it covers each kernel it replaces."""
        self.add(graph, "+".join(names), record)
        self.applied.append(candidate)
        self.cached.update((graph, n) for n in names)

    def add_searched(self, outcome: ProblemOutcome) -> None:
        """The search's decisions (a kernel it skipped because the cache decided it is recorded once, above)."""
        for k in outcome.kernels:
            if k.decision == "skipped" and (k.graph, k.kernel) in self.cached:
                continue
            self.records.append(outcome_record(k))
            if k.decision == "accepted" and k.winner is not None:
                self.applied.append(k.winner)

    def run_record(self, graphs: list[KernelGraph], *, name: str, backend: str, mode: str, seconds: float,
                   proposer: str, outcome: ProblemOutcome | None, perf: dict[str, Any] | None,
                   use_cache: bool) -> RunRecord:
        """The run's record; what has no cache entry is listed only where the run read the cache."""
        uncached = [(g, n) for g in graphs for n in g.kernels if (g.index, n) not in self.cached]
        runs = ["+".join(r) for g in graphs for r in g.contiguous_runs() if (g.index, "+".join(r)) not in self.cached]
        return RunRecord(name, backend, mode, self.records, self.applied, self.regressions, seconds, perf, proposer,
                         outcome, triton_kernels=sum(len(g.kernels) for g in graphs),
                         uncached=[n for _, n in uncached] if use_cache else [],
                         uncached_runs=runs if use_cache else [],
                         untunable=[n for g, n in uncached if not can_search(g, n)] if use_cache else [],
                         proposer_errors=outcome.proposer_errors if outcome is not None else [])
