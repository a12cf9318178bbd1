"""The one workflow of a module's run, for both entry points -- the ``kernelopt`` fixture
(:meth:`pytest_kernelopt.harness.Harness.run_module`) and problem files (``pytest --kernelopt-problems``,
``kernelopt bench``).

Its parts, in the order a run takes them:

* :mod:`.run` -- the sequence: :func:`run_workflow` verifies in this process and starts a worker only if something
  is left to search; :func:`run_kernelopt` is one evaluator's run;
* :mod:`.proposer` -- which proposer searches (chosen once a run) and how it searches;
* :mod:`.serve` -- the cached kernels: re-verified and applied, kept, or left to the search;
* :mod:`.search` -- optimize mode's search for the rest;
* :mod:`.store` -- the search's decisions written to the cache;
* :mod:`.perf_check` -- ``--kernelopt-perf``: the whole module against the compiled baseline;
* :mod:`.decisions` -- what the run decided, kernel by kernel, and the record made of it;
* :mod:`.keys` -- how the cache names what a run looks up and writes.

The records a run returns are in :mod:`pytest_kernelopt.records`; the checks of committed cache entries
(``kernelopt cache verify``) in :mod:`pytest_kernelopt.entry_checks`."""

from .keys import cache_key, device_key, problem_id_for
from .proposer import choose_proposer, proposer_reason, search_conditions
from .run import (
    cache_precheck,
    make_evaluator,
    optimize_problem_file,
    release_memory,
    run_kernelopt,
    run_problem_spec,
    run_workflow,
)
from .serve import search_again

__all__ = ["cache_key", "cache_precheck", "choose_proposer", "device_key", "make_evaluator", "optimize_problem_file",
           "problem_id_for", "proposer_reason", "release_memory", "run_kernelopt", "run_problem_spec", "run_workflow",
           "search_again", "search_conditions"]
