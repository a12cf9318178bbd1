"""Nsight Compute metrics: the CSV parser, the child-process run (through a stand-in ncu), and the profile."""

from __future__ import annotations

import pickle
import stat
import sys
import textwrap

import pytest

from pytest_kernelopt.ncu import METRICS, NcuReport, collect, parse_ncu_csv
from pytest_kernelopt.problems import ProblemSpec
from pytest_kernelopt.profile import KernelProfile, ModuleProfile, with_ncu

HEADER = ['"ID"', '"Process ID"', '"Process Name"', '"Host Name"', '"Kernel Name"', '"Context"', '"Stream"',
          *[f'"{m}"' for m in METRICS]]
UNITS = ['""'] * 7 + ['"nsecond"', '"byte"', '"byte"', '"%"', '"%"', '"%"', '"register/thread"']


def _csv(rows: list[tuple[str, list[str]]]) -> str:
    lines = ["==PROF== Connected to process 123", "some output the program printed", ",".join(HEADER),
             ",".join(UNITS)]
    for i, (name, values) in enumerate(rows):
        lines.append(",".join([f'"{i}"', '"123"', '"python3"', '"host"', f'"{name}"', '"1"', '"7"',
                               *[f'"{v}"' for v in values]]))
    lines.append("==PROF== Disconnected from process 123")
    return "\n".join(lines) + "\n"


SAMPLE = _csv([("triton_red_fused_sum_0", ["12,000", "4,194,304", "16", "80.5", "30.0", "88.0", "24"]),
               ("triton_red_fused_sum_0", ["10,000", "4,194,304", "16", "70.5", "20.0", "86.0", "24"]),
               ("triton_poi_fused_add_1", ["3,000", "n/a", "8", "10.0", "5.0", "12.0", "18"])])


def test_parse_sums_times_and_bytes_and_averages_rates_over_launches():
    m = parse_ncu_csv(SAMPLE)
    assert set(m) == {"triton_red_fused_sum_0", "triton_poi_fused_add_1"}
    k = m["triton_red_fused_sum_0"]
    assert k["launches"] == 2 and k["duration_ns"] == 22000 and k["dram_read_bytes"] == 2 * 4194304
    assert k["dram_throughput_pct"] == pytest.approx(75.5) and k["registers_per_thread"] == 24
    assert "dram_read_bytes" not in m["triton_poi_fused_add_1"], "n/a is no number"


def test_parse_finds_nothing_in_output_without_a_csv_header():
    assert parse_ncu_csv("==ERROR== the profiler could not start\n") == {}


def _fake_ncu(tmp_path, body: str) -> str:
    path = tmp_path / "ncu"
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_collect_runs_the_target_under_ncu_with_the_clocks_left_alone(tmp_path, monkeypatch):
    """A stand-in ncu checks the command line the real one would get and answers the sample CSV."""
    seen = tmp_path / "argv.pkl"
    ncu = _fake_ncu(tmp_path, f"""
        import pickle, sys
        argv = sys.argv[1:]
        spec_path = argv[-1]
        with open(spec_path, "rb") as f:
            spec, training = pickle.load(f)
        with open({str(seen)!r}, "wb") as f:
            pickle.dump((argv, spec, training), f)
        sys.stdout.write({SAMPLE!r})
    """)
    monkeypatch.setenv("KERNELOPT_NCU", ncu)
    spec = ProblemSpec("file", str(tmp_path / "p.py"), "p")
    report = collect(spec, ["triton_red_fused_sum_0", "triton_poi_fused_add_1", "triton_missing_2"], training=True)
    assert report.available, report.note
    assert report.for_kernel("triton_red_fused_sum_0")["duration_ns"] == 22000
    assert "not seen by ncu: triton_missing_2" in report.note
    argv, got_spec, training = pickle.loads(seen.read_bytes())
    assert got_spec == spec and training is True
    assert argv[argv.index("--clock-control") + 1] == "none"
    assert argv[argv.index("--profile-from-start") + 1] == "off"
    assert argv[argv.index("-k") + 1] == "regex:^(triton_missing_2|triton_poi_fused_add_1|triton_red_fused_sum_0)$"
    assert set(argv[argv.index("--metrics") + 1].split(",")) == set(METRICS)
    assert argv[-3:-1] == ["-m", "pytest_kernelopt.ncu_target"]


def test_a_failing_ncu_run_says_why_and_gives_no_metrics(tmp_path, monkeypatch):
    ncu = _fake_ncu(tmp_path, """
        import sys
        sys.stderr.write("==ERROR== ERR_NVGPUCTRPERM - no permission to access GPU performance counters\\n")
        sys.exit(1)
    """)
    monkeypatch.setenv("KERNELOPT_NCU", ncu)
    report = collect(ProblemSpec("file", "p.py", "p"), ["k"])
    assert not report.available and not report.metrics
    assert "exited 1" in report.note and "ERR_NVGPUCTRPERM" in report.note


def test_a_hanging_ncu_run_is_cut_off(tmp_path, monkeypatch):
    ncu = _fake_ncu(tmp_path, """
        import time
        time.sleep(30)
    """)
    monkeypatch.setenv("KERNELOPT_NCU", ncu)
    report = collect(ProblemSpec("file", "p.py", "p"), ["k"], timeout=1.0)
    assert not report.available and "did not finish in 1s" in report.note


def test_without_ncu_or_without_a_picklable_module_nothing_is_collected(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELOPT_NCU", str(tmp_path / "no-such-ncu"))
    assert "ncu not found" in collect(ProblemSpec("file", "p.py", "p"), ["k"]).note
    assert "does not pickle" in collect(None, ["k"], ncu="/bin/true").note


def test_metrics_replace_the_estimated_roofline_and_class():
    kp = [KernelProfile("triton_red_fused_sum_0", 0, "reduction", 1 << 22, 22.0, 0.8, 0.4, "estimated"),
          KernelProfile("triton_poi_fused_add_1", 0, "pointwise", 1 << 20, 3.0, 0.1, 0.1, "estimated"),
          KernelProfile("triton_poi_other_2", 0, "pointwise", 1 << 20, 9.0, 0.1, 0.5, "estimated")]
    prof = ModuleProfile("cuda", True, 30.0, tuple(kp))
    out = with_ncu(prof, NcuReport(True, parse_ncu_csv(SAMPLE), "note"))
    red, poi, other = out.kernels
    assert red.roofline_fraction == pytest.approx(0.755) and red.bottleneck.startswith("memory-bound")
    assert red.ncu["launches"] == 2
    assert poi.bottleneck.startswith("launch/latency-bound"), "3 us a launch is a tiny kernel"
    assert other.ncu is None and other.bottleneck == "estimated", "a kernel ncu did not see keeps its estimate"
    assert out.ncu_note == "note"
    gone = with_ncu(prof, NcuReport(False, note="ncu not found"))
    assert gone.kernels == prof.kernels and gone.ncu_note == "ncu not found"
