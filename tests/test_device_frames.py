"""GPU tensors between processes on one GPU as device frames: a CUDA IPC handle the receiver copies from on the
device, into memory of its own (issue 38: the judge takes the baseline's runs and the float64 truths where they are
made, instead of through host memory).  GPU only: the header checks run everywhere (tests/test_wire_frames.py)."""

from __future__ import annotations

import multiprocessing as mp

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt import wire  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="device frames need a GPU")

MIB = 1 << 20


def _values(n: int, dtype=torch.float32):
    return torch.arange(n, dtype=torch.float64).mul_(0.001).sin_().to(dtype)


def _tensors(device: str) -> dict:
    return {
        "contiguous": _values(1 << 20, torch.float32).to(device).view(1024, 1024),
        "transposed": _values(1 << 20, torch.float32).to(device).view(1024, 1024).t(),
        "offset_view": _values(3 << 20, torch.float32).to(device).view(3, 1024, 1024)[1],
        "bfloat16": _values(1 << 20, torch.bfloat16).to(device),
        "float64": _values(1 << 18, torch.float64).to(device),
    }


def _sender(conn, lie: bool) -> None:
    """A worker: sends its tensors as device frames; then overwrites them and says so.  ``lie``: one frame's header
    claims 64 times the bytes its allocation holds."""
    import io

    from pytest_kernelopt import device_frames

    wire.allow_device_frames(True)
    tensors = _tensors("cuda")
    if lie:
        t = tensors["contiguous"]
        torch.cuda.synchronize()
        meta = {"dtype": "float32", "shape": [64 * 1024, 1024], "stride": [1024, 1], "via": wire.DEVICE,
                "ipc": device_frames.export(t)}
        buf = io.BytesIO()
        torch.save({"frames": [meta], "value": {"__kernelopt_frame__": 0}}, buf)
        conn.send_bytes(buf.getvalue())
        conn.recv_bytes()  # the receiver refuses it: the pipe closes
        return
    wire.send(conn, ("runs", tensors))
    for t in tensors.values():
        t.zero_()
    torch.cuda.synchronize()
    wire.send(conn, ("overwritten", None))
    conn.recv()


def _receive_from(lie: bool, on_device: bool):
    ctx = mp.get_context("spawn")
    a, b = ctx.Pipe()
    proc = ctx.Process(target=_sender, args=(b, lie), daemon=True)
    proc.start()
    b.close()
    try:
        def wait(what):  # as the isolated judge does: the frame's bytes must come within its time
            if not a.poll(10):
                raise TimeoutError(f"nothing came for {what}")

        assert a.poll(120), "the sender sent nothing"
        got, nbytes = wire.receive(a, 1 << 30, wait, lambda n: on_device)
        if lie:
            return got, nbytes
        assert a.poll(60)
        (after, _), _ = wire.receive(a, 1 << 30, wait, lambda n: on_device)
        assert after == "overwritten"
        a.send(None)
        return got, nbytes
    finally:
        proc.join(30)
        if proc.is_alive():
            proc.kill()
        a.close()


@pytest.mark.parametrize("on_device", [True, False])
def test_device_frames_are_copied_into_the_receivers_own_memory_where_it_says(on_device):
    (kind, value), nbytes = _receive_from(lie=False, on_device=on_device)
    assert kind == "runs"
    expected = _tensors("cpu")
    for name, t in expected.items():
        back = value[name]
        assert back.device.type == ("cuda" if on_device else "cpu"), name
        assert back.dtype == t.dtype and back.shape == t.shape and back.stride() == t.stride(), name
        # the sender zeroed its tensors after the receiver said it had copied them: the copy is the receiver's
        assert torch.equal(back.cpu(), t), name
    assert nbytes >= sum(t.numel() * t.element_size() for t in expected.values())


def test_a_device_frame_that_claims_more_than_its_allocation_is_refused():
    with pytest.raises(wire.WireError, match="runs past its allocation"):
        _receive_from(lie=True, on_device=True)


def test_a_record_the_judge_holds_on_its_gpu_compares_by_value_with_one_it_holds_on_the_host():
    """The isolated judge keeps a device frame on its GPU where it has room and on the host where not, and a
    host frame on the host: the same run's values held in both places are judged equal, and different ones not."""
    from pytest_kernelopt.gates.compare import compare_outputs

    def tol(dtype):
        return 1e-5, 1e-6

    host = _values(1 << 20).view(1024, 1024)
    same = compare_outputs(host, host.cuda(), tol, tiny_factor=1e-3, tiny_rel_tol=0.05)
    assert not same.hard_failure and same.within_tolerance
    off = host.clone()
    off[7, 7] += 1.0
    other = compare_outputs(off.cuda(), host, tol, tiny_factor=1e-3, tiny_rel_tol=0.05)
    assert not other.hard_failure and not other.within_tolerance
