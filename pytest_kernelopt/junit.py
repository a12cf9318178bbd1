"""Each kernel's decision in JUnit XML, valid for the junit family the run writes.

The rules (tests/test_plugin.py::test_verify_mode_with_ini_marker_report_and_junit,
tests/test_plugin.py::test_a_kernels_junit_property_tells_measured_from_not_measured):

* Per-test properties exist only in the ``xunit1`` (``legacy``) family.  There, and in a run writing no JUnit XML
  (other reporters read ``user_properties``), each test gets ``kernelopt_backend``, ``kernelopt_mode`` and one
  ``kernelopt:<kernel>`` property.  Under ``xunit2``, pytest's default, a test case may carry none (pytest warns
  of ``record_property`` there): the same facts are properties of the test suite, ``kernelopt:<test id>:<kernel>``,
  written once the session's results are all in (those of xdist workers too).
* A property's value says the decision, where the kernel came from, and its speedup with the interval where it was
  measured; a kept baseline gives the nearest candidate's, and one that nothing measured says ``not measured``
  (with ``no GPU`` where there is none), so "measured and kept" never reads as "not measured".  A kernel the
  cache had no entry for and no search decided (verify mode) says so (:data:`UNCACHED`).
"""

from __future__ import annotations

from typing import Any, Callable

PER_TEST_FAMILIES = ("xunit1", "legacy")
#: the value for a kernel with no cache entry that no search decided
UNCACHED = "no cache entry (ran as Inductor compiled it)"


def per_test_properties(config: Any) -> bool:
    """Whether a test's own properties are valid in this run's JUnit XML (or the run writes none)."""
    if not getattr(config.option, "xmlpath", None):
        return True
    return str(config.getini("junit_family")) in PER_TEST_FAMILIES


def kernel_value(k: Any, backend: str) -> str:
    """A kernel's decision as a JUnit property's value (see the module docstring)."""
    head = f"{k.decision} ({k.source})"
    perf = (k.numbers or {}).get("performance") or {}
    if k.speedup is not None and k.ci and None not in k.ci:
        text = f"{head} {k.speedup:.3f}x [{k.ci[0]:.3f}, {k.ci[1]:.3f}]"
    elif perf.get("measured") and perf.get("speedup") is not None:
        interval = (f" [{perf['ci_low']:.3f}, {perf['ci_high']:.3f}]"
                    if perf.get("ci_low") is not None and perf.get("ci_high") is not None else "")
        text = f"{head}, nearest candidate {perf['speedup']:.3f}x{interval}"
    elif k.speedup:
        text = f"{head} {k.speedup:.3f}x"
    else:
        text = f"{head}, not measured" + (" (no GPU)" if backend != "cuda" else "")
    if k.failed_gates:
        text += f"; failed gates: {','.join(k.failed_gates)}"
    return text


def test_properties(record: Any) -> list[tuple[str, str]]:
    """One test's properties: its backend and mode, then each kernel's decision, and each kernel the cache had no
    entry for and no search decided (verify mode: it ran as Inductor compiled it)."""
    decided = {k.kernel for k in record.kernels}
    return [("kernelopt_backend", record.backend), ("kernelopt_mode", record.mode)] + [
        (f"kernelopt:{k.kernel}", kernel_value(k, record.backend)) for k in record.kernels] + [
        (f"kernelopt:{name}", UNCACHED) for name in getattr(record, "uncached", ()) if name not in decided]


def add_suite_properties(config: Any, results: list[tuple[str, Any]],
                         per_test: Callable[[Any], bool] = per_test_properties) -> None:
    """Under ``xunit2``: every result's properties as the test suite's, named by the test (no-op otherwise, or
    where pytest keeps no JUnit writer in this process, as on an xdist worker)."""
    if per_test(config):
        return
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pytest moved it: the report and the summary still carry every decision
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    for nodeid, record in results:
        for name, value in test_properties(record):
            xml.add_global_property(f"{name}:{nodeid}" if not name.startswith("kernelopt:") else
                                    f"kernelopt:{nodeid}:{name[len('kernelopt:'):]}", value)
