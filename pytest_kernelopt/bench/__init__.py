"""``kernelopt bench --compare-modes``: ours against eager, default compile and max-autotune, per problem.

For each problem file the bench first runs as usual (re-verify cached kernels, search the rest: our search
time), then, in this one process:

* **eager**: the module itself;
* **default**: ``torch.compile`` as a user calls it (captured, so kernels can be swapped into it);
* **max-autotune**: ``torch.compile(mode="max-autotune-no-cudagraphs")`` as torch defines that mode;
* **max-autotune+cd**: max-autotune with ``coordinate_descent_tuning=True`` (no CUDA graphs);
* **ours**: the default compile with the accepted and cached kernels swapped in (the bench's result).

Each compiled mode gets an entry point of its own (its own code object, so no Dynamo cache entry is shared with another
mode), is compiled with Inductor's config patched by ``torch._inductor.config.patch`` around the compile and the first
call (where lazy compilation and autotuning happen) and with Inductor's caches off (``force_disable_caches``: cold
compile times, comparable across modes and runs).  All modes are then timed interleaved with the performance gate's
timer (:func:`pytest_kernelopt.gates.timing.time_interleaved`: CUDA events, L2 flushed, each timed call after an untimed
one of the same mode, the order rotating so that every mode takes every slot), the default column twice (the timer's A/A
control: ``timer_aa``), under ``fail_on_recompile`` (a mode that would recompile while timed is an error of that mode,
never a silent measurement of something else).  A mode that fails (out of memory, a compile error) is recorded and the
others go on; a problem that fails is recorded and the run goes on.

Without a GPU (or on a GPU this process may not time on) nothing is timed: eager, default and ours are
compiled and checked for correctness against eager, every timing column says "not measured", and the
max-autotune modes, which tune for a GPU, are neither compiled nor timed ("not measured").

Results go to ``<out>/compare_modes.json``, rewritten (atomically) after every problem: a rerun skips the
problems already done there, so a run cut off after N problems resumes at problem N+1.  One folder holds
one GPU's records: a run on another GPU is refused (exit 2) and given its own ``--out``.  ``compare_modes.md``
(a table and the geometric means) and ``compare_modes.png`` (speedup per problem against both max-autotune
modes, when matplotlib is installed: ``pip install pytest-kernelopt[plot]``) are written next to it.

Its parts: :mod:`.modes` (the modes compared, the names measuring and rendering share), :mod:`.measure`
(compiling, checking and timing one problem's modes), :mod:`.render` (the geometric means, the markdown, the
chart, the lines printed; no torch), :mod:`.command` (:func:`~.command.run_compare_modes`: which problems run,
resuming, the files rewritten after each).  Nothing is imported here, so that importing :mod:`.render` does not
import torch.
"""
