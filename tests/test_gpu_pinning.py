"""One xdist worker per GPU (gpu_pinning.py), on CPU: simulated workers through environment variables, and a
real ``pytest -n 3`` run whose workers are told of two GPUs (KERNELOPT_GPUS) that are not there."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_kernelopt import gpu_pinning as gp

REPO = Path(__file__).resolve().parents[1]

SMI = """GPU 0: NVIDIA H200 (UUID: GPU-aaaa)
GPU 1: NVIDIA H200 (UUID: GPU-bbbb)
"""
SMI_MIG = """GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-aaaa)
  MIG 3g.20gb     Device  0: (UUID: MIG-1111)
  MIG 3g.20gb     Device  1: (UUID: MIG-2222)
GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-bbbb)
"""


def no_smi(argv):
    raise AssertionError(f"nvidia-smi must not be run here: {argv}")


def worker_env(i: int, n: int, run: str = "run1", **extra: str) -> dict[str, str]:
    return {"PYTEST_XDIST_WORKER": f"gw{i}", "PYTEST_XDIST_WORKER_COUNT": str(n),
            "PYTEST_XDIST_TESTRUNUID": run, **extra}


def test_nvidia_smi_listing_gpus_and_mig_devices():
    assert gp.parse_nvidia_smi(SMI) == (["0", "1"], ["NVIDIA H200", "NVIDIA H200"])
    ids, names = gp.parse_nvidia_smi(SMI_MIG)
    assert ids == ["MIG-1111", "MIG-2222", "1"] and names[0] == names[2] == "NVIDIA A100-SXM4-40GB"
    assert gp.parse_nvidia_smi("") == ([], [])
    assert gp.parse_nvidia_smi("NVIDIA-SMI has failed because it couldn't communicate with the driver") == ([], [])


def test_visible_gpus_in_order_of_precedence():
    # an existing CUDA_VISIBLE_DEVICES list is respected as given (nvidia-smi is not asked)
    assert gp.visible_gpus({"CUDA_VISIBLE_DEVICES": "3, 5,GPU-x", "KERNELOPT_GPUS": "8"}, no_smi) == (
        ["3", "5", "GPU-x"], [], "CUDA_VISIBLE_DEVICES")
    assert gp.visible_gpus({"CUDA_VISIBLE_DEVICES": ""}, no_smi)[0] == []
    assert gp.visible_gpus({"CUDA_VISIBLE_DEVICES": "-1"}, no_smi)[0] == []
    assert gp.visible_gpus({"KERNELOPT_GPUS": "4"}, no_smi) == (["0", "1", "2", "3"], [], "KERNELOPT_GPUS")
    assert gp.visible_gpus({"KERNELOPT_GPUS": "2,6"}, no_smi)[0] == ["2", "6"]
    assert gp.visible_gpus({}, lambda argv: SMI) == (["0", "1"], ["NVIDIA H200"] * 2, "nvidia-smi -L")
    assert gp.visible_gpus({}, lambda argv: "") == ([], [], "no GPU found")


def simulate(n_workers: int, base: dict[str, str]) -> list[tuple[gp.Pin, dict[str, str]]]:
    """n_workers simulated xdist workers, each with its own copy of the environment the controller gave it."""
    out = []
    for i in range(n_workers):
        env = {**base, **worker_env(i, n_workers)}
        out.append((gp.pin_environment(env, no_smi), env))
    return out


@pytest.mark.parametrize("n_workers,n_gpus", list(itertools.product(range(1, 7), range(1, 5))))
def test_no_worker_times_on_a_gpu_another_worker_uses(n_workers, n_gpus):
    pinned = simulate(n_workers, {"KERNELOPT_GPUS": str(n_gpus)})
    users: dict[str, list[str]] = {}
    for pin, env in pinned:
        assert env["CUDA_VISIBLE_DEVICES"] == pin.gpu  # each worker sees exactly one GPU
        users.setdefault(pin.gpu, []).append(pin.worker)
    for pin, env in pinned:
        alone = users[pin.gpu] == [pin.worker]
        assert pin.timing == alone
        assert ("KERNELOPT_NO_TIMING" not in env) == alone
        assert gp.timing_refused(env) is None if alone else "shares its GPU" in gp.timing_refused(env)
    if n_workers <= n_gpus:  # one worker per GPU: every worker on its own GPU, every one of them timing
        assert sorted(users) == [str(i) for i in range(n_workers)] and all(p.timing for p, _ in pinned)
    else:  # every GPU is used, spread evenly
        assert len(users) == n_gpus and max(map(len, users.values())) - min(map(len, users.values())) <= 1


def test_an_existing_cuda_visible_devices_list_is_what_workers_share_out():
    pinned = simulate(3, {"CUDA_VISIBLE_DEVICES": "4,6,7"})
    assert [env["CUDA_VISIBLE_DEVICES"] for _, env in pinned] == ["4", "6", "7"]
    assert all(p.timing and p.source == "CUDA_VISIBLE_DEVICES" for p, _ in pinned)
    assert "GPU 6" in pinned[1][0].describe() and "timing on" in pinned[1][0].describe()


def test_pinning_is_idempotent_and_a_nested_run_plans_within_the_gpu_it_was_given():
    env = {"KERNELOPT_GPUS": "4", **worker_env(2, 4)}
    first = gp.pin_environment(env, no_smi)
    assert env["CUDA_VISIBLE_DEVICES"] == "2"
    assert gp.pin_environment(env, no_smi) == first and env["CUDA_VISIBLE_DEVICES"] == "2"  # configure's 2nd call
    assert gp.current_pin(env) == first
    # a pytest run started inside this worker (pytester, a subprocess): not an xdist run of its own, same pin
    child = dict(env)
    assert gp.pin_environment(child, no_smi) == first and child == env
    # an xdist run nested in this worker: its two workers share the one GPU they inherited, so neither times
    nested = [{**env, **worker_env(i, 2, run="run2")} for i in range(2)]
    pins = [gp.pin_environment(e, no_smi) for e in nested]
    assert [e["CUDA_VISIBLE_DEVICES"] for e in nested] == ["2", "2"] and not any(p.timing for p in pins)


def test_not_an_xdist_worker_or_pinning_off():
    env = {"KERNELOPT_GPUS": "2"}
    assert gp.pin_environment(env, no_smi) is None and env == {"KERNELOPT_GPUS": "2"}
    env = {"KERNELOPT_GPUS": "2", "KERNELOPT_PIN_GPUS": "0", **worker_env(1, 2)}
    pin = gp.pin_environment(env, no_smi)
    assert pin.gpu is None and "CUDA_VISIBLE_DEVICES" not in env
    assert not pin.timing and "not pinned" in env["KERNELOPT_NO_TIMING"]  # two workers, maybe both on cuda:0
    env = {"KERNELOPT_PIN_GPUS": "0", **worker_env(0, 1)}
    assert gp.pin_environment(env, no_smi).timing and "KERNELOPT_NO_TIMING" not in env  # a single worker
    env = worker_env(0, 2)  # no GPU found at all (the CPU backend): nothing is pinned
    pin = gp.pin_environment(env, lambda argv: "")
    assert pin.gpu is None and "CUDA_VISIBLE_DEVICES" not in env


class FakeConfig:
    def __init__(self, ini=None, **known):
        self.known_args_namespace = type("NS", (), {"kernelopt": False, "kernelopt_mode": None,
                                                   "kernelopt_backend": None, "kernelopt_perf": False,
                                                   "kernelopt_problems": [], **known})()
        self.ini = ini or {}

    def getini(self, name):
        return self.ini.get(name)


def test_auto_worker_count_is_the_gpu_count_for_runs_that_time():
    env = {"KERNELOPT_GPUS": "4"}
    assert gp.auto_workers(FakeConfig(kernelopt=True), env, no_smi) == 4
    assert gp.auto_workers(FakeConfig(kernelopt_perf=True), env, no_smi) == 4
    assert gp.auto_workers(FakeConfig(ini={"kernelopt_mode": "optimize"}), env, no_smi) == 4
    assert gp.auto_workers(FakeConfig(kernelopt_problems=["p/"]), env, no_smi) == 4
    assert gp.auto_workers(FakeConfig(), env, no_smi) is None  # verify mode: xdist's own choice
    assert gp.auto_workers(FakeConfig(kernelopt=True, kernelopt_mode="off"), env, no_smi) is None
    assert gp.auto_workers(FakeConfig(kernelopt=True, kernelopt_backend="cpu"), env, no_smi) is None
    assert gp.auto_workers(FakeConfig(kernelopt=True), {}, lambda argv: "") is None  # no GPU
    assert gp.auto_workers(FakeConfig(kernelopt=True), {**env, "PYTEST_XDIST_AUTO_NUM_WORKERS": "3"}, no_smi) is None
    # --kernelopt-mode wins over --kernelopt, and the command line over the ini file
    assert gp.kernelopt_mode(FakeConfig(kernelopt=True, kernelopt_mode="verify"))[0] == "verify"
    assert gp.kernelopt_mode(FakeConfig(ini={"kernelopt_mode": "off"}, kernelopt=True))[0] == "optimize"


def test_a_shared_gpu_backend_measures_no_time(monkeypatch):
    torch = pytest.importorskip("torch")
    from pytest_kernelopt import backends

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(backends.cpu_interpret, "interpreter_requested", lambda: False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "Fake GPU")
    monkeypatch.delenv("KERNELOPT_NO_TIMING", raising=False)
    assert backends.select_backend("cuda").measures_time
    monkeypatch.setenv("KERNELOPT_NO_TIMING", "xdist worker gw2 shares its GPU with gw0")
    b = backends.select_backend("cuda")
    assert not b.measures_time and "performance not measured: xdist worker gw2 shares its GPU" in b.description


def test_summary_says_which_gpu_each_worker_used():
    pins = [p for p, _ in simulate(3, {"KERNELOPT_GPUS": "2"})]
    lines = gp.summary_lines(list(reversed(pins)))
    assert lines[0] == "GPU per xdist worker: gw0 -> GPU 0 (no timing), gw1 -> GPU 1, gw2 -> GPU 0 (no timing)"
    assert "use -n 2 for 2 GPU(s)" in lines[-1]
    assert gp.Pin.from_json(pins[1].to_json()) == pins[1]
    # a machine with no GPU at all: nothing about GPUs in the summary (the run says what was not measured)
    assert gp.summary_lines([p for p, _ in simulate(2, {"KERNELOPT_GPUS": "0"})]) == []


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_XDIST", "KERNELOPT_GPU", "KERNELOPT_NO_TIMING", "KERNELOPT_PIN"))
           and k not in ("CUDA_VISIBLE_DEVICES", "PYTEST_ADDOPTS")}
    return {**env, **extra}


def test_three_xdist_workers_on_two_gpus_pin_before_conftest_and_report_it(tmp_path):
    """A real ``pytest -n 3``: the conftest (imported before any test) already sees the worker's one GPU, the
    isolated-worker-style subprocess inherits it, and the summary and JSON report say which GPU each used."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent("""
        import os
        SEEN_AT_IMPORT = os.environ.get("CUDA_VISIBLE_DEVICES")
    """))
    (tmp_path / "test_where.py").write_text(textwrap.dedent("""
        import json, os, subprocess, sys
        import pytest
        import conftest

        @pytest.mark.parametrize("i", range(6))
        def test_where(i, tmp_path_factory):
            child = subprocess.run([sys.executable, "-c", "import os; print(os.environ['CUDA_VISIBLE_DEVICES'])"],
                                   capture_output=True, text=True).stdout.strip()
            out = tmp_path_factory.getbasetemp().parent.parent / f"where-{os.environ['PYTEST_XDIST_WORKER']}.json"
            out.write_text(json.dumps({"conftest": conftest.SEEN_AT_IMPORT, "now": os.environ["CUDA_VISIBLE_DEVICES"],
                                       "child": child, "no_timing": os.environ.get("KERNELOPT_NO_TIMING")}))

        def test_kernelopt_summary(kernelopt):
            import torch
            kernelopt(torch.nn.ReLU(), (torch.randn(8),))
    """))
    report = tmp_path / "report.json"
    (tmp_path / "bt").mkdir()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "3", "-p", "no:cacheprovider", "-q",
                           f"--basetemp={tmp_path / 'bt' / 'base'}", f"--kernelopt-report={report}",
                           "--kernelopt-cache-dir", str(tmp_path / "kc"), str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600,
                          env=_clean_env(KERNELOPT_GPUS="2"))
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    seen = {p.stem.split("-")[1]: json.loads(p.read_text()) for p in (tmp_path / "bt").glob("where-gw*.json")}
    assert seen, proc.stdout
    expect = {"gw0": "0", "gw1": "1", "gw2": "0"}
    for worker, d in seen.items():
        assert d["conftest"] == d["now"] == d["child"] == expect[worker], (worker, d)
        assert (d["no_timing"] is None) == (worker == "gw1"), (worker, d)
    assert "GPU per xdist worker: gw0 -> GPU 0 (no timing), gw1 -> GPU 1, gw2 -> GPU 0 (no timing)" in proc.stdout
    doc = json.loads(report.read_text())
    assert doc["gpu_per_worker"]["gw1"] == {"gpu": "1", "timing": True, "source": "KERNELOPT_GPUS",
                                            "shared_with": []}
    assert doc["gpu_per_worker"]["gw2"]["shared_with"] == ["gw0"]
