"""Checks by provenance: what a candidate can get wrong depends on where its code comes from.

A candidate is one of four classes, decided by the judge from the candidate's data and the captured graph (never
from what the candidate says of itself):

* :data:`LAUNCH_CONFIG` -- Inductor's own kernel source, byte for byte (but for Inductor's per-graph numbering),
  under another launch configuration its launch space admits (:func:`.reorder.inductor_reorder`): the tuner's
  configs, and a cache entry that is one;
* :data:`MECHANICAL_EDIT` -- Inductor's own source with the one edit the tuner makes, and nothing else: its
  reduction loop software-pipelined (``tl.range(..., num_stages=S)``), certified on the syntax tree
  (:func:`.reorder.mechanical_edit`);
* :data:`LONGER_CHAIN` -- either of the two above under a launch config whose reduction blocks are smaller than
  the baseline's own (:func:`.reorder.longer_chain`): Inductor's arithmetic in an order whose longer sequential
  chains may round farther from the truth than the baseline's, within tolerance (even in a config Inductor's own
  max-autotune list holds);
* :data:`FREE_FORM` -- anything else: the agents' kernels, a fusion, a looped variant launched by a spec, a cache
  entry from a pull request.

None of the first three carries code of the proposer's: the arithmetic is Inductor's, in another order or
schedule, and every load, store and mask is Inductor's.  What they can get wrong is the value (a reduction's order,
a miscompiled schedule), which the seeds, the float64 truth and the timing judge; a longer chain, also its
precision, which the precision check judges against the truth on every seed.  What only free-form code can do
-- keep state across calls, read memory it did not write, write what it should only read, special-case an input's
structure, count its calls, reach the process that judges it -- is what the other checks defend against, and they
run for free-form candidates only.  :data:`CHECKS` says which check defends against what, and for which classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

LAUNCH_CONFIG = "launch_config"
MECHANICAL_EDIT = "mechanical_edit"
LONGER_CHAIN = "longer_chain"
FREE_FORM = "free_form"
#: from the class whose code is most like Inductor's to the least: a joint set is its least
CLASSES = (LAUNCH_CONFIG, MECHANICAL_EDIT, LONGER_CHAIN, FREE_FORM)


@dataclass(frozen=True)
class Check:
    name: str
    defends: str  # what a candidate that fails it got wrong
    classes: tuple[str, ...]  # the provenance classes it runs for


ALL = CLASSES
#: every check the gates make of a candidate, with what it defends against and the classes that need it; the costs
#: at size are in docs/gates.md ("Checks by provenance"), each candidate's own in its numbers (``check_seconds``)
CHECKS = (
    Check("static", "source off the allowlist; a kernel that does not compile for this device", ALL),
    Check("seeds", "wrong values on the plan's seeds (magnitudes, special values, integer-valued inputs) against "
          "the baseline's, within tolerance; inputs mutated otherwise than the baseline does", ALL),
    Check("fp64", "a difference from the baseline beyond tolerance (or NaN and Inf where the baseline has none) that "
          "is not closer to the float64 truth; the truth is computed on the seeds where the candidate differs so",
          ALL),
    Check("fp64_every_seed", "errors within tolerance of the baseline but biased against the float64 truth, or a "
          "lower-precision computation (the precision check, applied): the truth on every seed (Inductor's "
          "arithmetic in an order with no longer chains than the baseline's differs from it by rounding alone, "
          "which the tolerance bounds)", (LONGER_CHAIN, FREE_FORM)),
    Check("timing", "slower than the baseline; timed calls that compute something else than untimed ones", ALL),
    Check("rerun", "a result that depends on what its buffers held, a race, the order its programs run in",
          (FREE_FORM,)),
    Check("stale_buffers", "a result, or what a call leaves in memory, that depends on what an earlier call left",
          (FREE_FORM,)),
    Check("read_only_guard", "writes to memory the replaced kernel only reads (inputs, weights, constants), and "
          "module state written from what it held", (FREE_FORM,)),
    Check("loops", "state carried between calls: a loop of calls from the state the candidate's own calls leave, "
          "from the states the baseline settles in, and a stream of fresh inputs (call counters, time bombs)",
          (FREE_FORM,)),
    Check("structure_probes", "special-casing of an input's structure (labels, masks, one-hot, sorted, repeated "
          "rows) that the drawn seeds do not show", (FREE_FORM,)),
    Check("own_worker", "code that reaches the process judging it: a worker of its own, ended after the candidate "
          "(the other classes are judged in a clean worker, which stays clean)", (FREE_FORM,)),
)
_BY_NAME = {c.name: c for c in CHECKS}
#: the checks the collection of a candidate's runs makes (:func:`.trials.collect_candidate`), each named in its
#: record as it is made; the others are made by the static gate, the float64 gate, the timing and the judge's parent
COLLECTED = ("seeds", "rerun", "stale_buffers", "read_only_guard", "loops", "structure_probes")


def runs(check: str, provenance: str) -> bool:
    """Whether ``check`` (a name of :data:`CHECKS`) is made of a candidate of class ``provenance``."""
    return provenance in _BY_NAME[check].classes


def skipped(provenance: str) -> list[str]:
    """The checks a candidate of class ``provenance`` does not need."""
    return [c.name for c in CHECKS if provenance not in c.classes]


def missing(provenance: str, made: Sequence[str], exempt: Sequence[str] = ()) -> list[str]:
    """The collected checks a candidate of class ``provenance`` needs that a record says were not made (``exempt``:
    checks the plan makes of no candidate)."""
    return [c for c in COLLECTED if runs(c, provenance) and c not in made and c not in exempt]


def classify(statics: Sequence[Any]) -> str:
    """The class of a candidate (or a joint set: its least) from the static gate's results the judge computed:
    ``reorder_of_inductor`` (:data:`LAUNCH_CONFIG`) and ``mechanical_edit`` (:data:`MECHANICAL_EDIT`) in their
    numbers, either with ``longer_chain`` (:data:`LONGER_CHAIN`), else :data:`FREE_FORM`."""
    if not statics:
        return FREE_FORM
    found = [FREE_FORM if not (g.numbers.get("reorder_of_inductor") or g.numbers.get("mechanical_edit")) else
             LONGER_CHAIN if g.numbers.get("longer_chain") else
             LAUNCH_CONFIG if g.numbers.get("reorder_of_inductor") else MECHANICAL_EDIT for g in statics]
    return max(found, key=CLASSES.index)
