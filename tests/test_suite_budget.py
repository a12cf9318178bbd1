"""The suite's time guard (tests/conftest.py): a test over the budget whose docstring does not say why is named at
the end of the run, and never failed for it (timings are not asserted)."""

from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]


def test_a_slow_test_without_a_reason_is_named_and_one_with_a_reason_is_not(pytester, monkeypatch):
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makepyfile(test_slow='''
        import time

        def test_unexplained():
            time.sleep(0.3)

        def test_explained():
            """CPU time: sleeps, on purpose."""
            time.sleep(0.3)

        def test_quick():
            pass
    ''')
    monkeypatch.setenv("KERNELOPT_SLOW_TEST_S", "0.2")
    result = pytester.runpytest_subprocess("-p", "no:kernelopt", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    assert "whose docstring does not say why" in out, out
    named = [line for line in result.stdout.lines if "test_slow.py::" in line and line.strip()[0].isdigit()]
    assert len(named) == 1 and "test_unexplained" in named[0], out
