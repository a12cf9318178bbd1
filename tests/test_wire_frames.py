"""Large tensors between an evaluation worker and the judge travel as frames of raw bytes (issue 14: on the
H200 the records' transfer was 48-87 s of a candidate's gates), read into memory the judge allocates after
checking the header: a known dtype, a dense layout, a size within its limit.  Everything else a worker could
send in their place is refused, and the judge never allocates what it was not told it may."""

from __future__ import annotations

import io
import multiprocessing as mp

import pytest

torch = pytest.importorskip("torch")

from pytest_kernelopt import wire  # noqa: E402
from pytest_kernelopt.gates.trial_records import CandidateRecord, Run  # noqa: E402

MIB = 1 << 20


@pytest.fixture
def pipe():
    a, b = mp.Pipe()
    yield a, b
    a.close()
    b.close()


@pytest.fixture(params=["memfd", "bytes"])
def via(request, monkeypatch):
    """Both transports: sealed memfds where Linux has them, raw bytes through the socket elsewhere."""
    a, b = mp.Pipe()
    able = wire.memfd_frames(a)
    a.close()
    b.close()
    if request.param == "memfd" and not able:
        pytest.skip("no sealed memfds on this platform")
    if request.param == "bytes":
        monkeypatch.setattr(wire, "memfd_frames", lambda conn: False)
    return request.param


def _roundtrip(pipe, obj, limit=1 << 30):
    """Send from a thread (the sender blocks until the receiver reads, as between processes)."""
    import threading

    a, b = pipe
    err = []
    th = threading.Thread(target=lambda: _guard(err, lambda: wire.send(a, obj)))
    th.start()
    def wait(what):
        assert b.poll(30), f"the sender stopped before {what}: {err}"

    try:
        wait("the header")
        return wire.receive(b, limit, wait)
    finally:
        th.join(30)
        assert not err, err


def _guard(err, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        err.append(e)


def test_large_tensors_travel_as_frames_and_keep_values_dtypes_and_layouts(pipe, via):
    g = torch.Generator().manual_seed(0)
    base = torch.randn(4, 64, 32, 32, generator=g)
    tensors = {
        "contiguous": torch.randn(512, 1024, generator=g),
        "channels_last": base.to(memory_format=torch.channels_last),
        "transposed": torch.randn(1024, 512, generator=g).t(),
        "offset_view": torch.randn(3, 512, 1024, generator=g)[1],  # a dense view at a storage offset
        "bfloat16": torch.randn(1024, 1024, generator=g).bfloat16(),
        "bool": torch.rand(2048, 1024, generator=g) > 0.5,
        "int64": torch.randint(-9, 9, (256, 1024), generator=g),
        "small": torch.arange(10.0),  # inside the header
        "strided": torch.randn(1024, 1024, generator=g)[:, ::2],  # not dense: inside the header
    }
    rec = CandidateRecord(runs={3: Run((tensors["contiguous"], tensors["channels_last"]), {}, None)}, launches=2)
    (kind, value), got = _roundtrip(pipe, ("runs", {"rec": rec, **tensors}))
    assert kind == "runs" and isinstance(value["rec"], CandidateRecord)
    assert torch.equal(value["rec"].runs[3].outputs[1], base)
    assert value["rec"].runs[3].outputs[1].stride() == tensors["channels_last"].stride()
    for name, t in tensors.items():
        back = value[name]
        assert back.dtype == t.dtype and back.shape == t.shape and torch.equal(back, t), name
        if wire.dense(t.shape, t.stride()):
            assert back.stride() == t.stride(), name
    framed = sum(t.numel() * t.element_size() for t in tensors.values() if wire._framable(t))
    framed += tensors["contiguous"].numel() * 4 + base.numel() * 4  # the record's own two outputs, framed again
    inline = tensors["strided"].untyped_storage().nbytes()  # torch.save sends a view's whole storage
    assert framed + inline <= got < framed + inline + MIB
    assert wire._framable(tensors["contiguous"]) and not wire._framable(tensors["small"])
    assert not wire._framable(tensors["strided"])


def _header(frames, value):
    buf = io.BytesIO()
    torch.save({"frames": frames, "value": value}, buf)
    return buf.getvalue()


def _meta(shape, stride, dtype="float32", via="bytes"):
    return {"dtype": dtype, "shape": list(shape), "stride": list(stride), "via": via}


@pytest.mark.parametrize("frames,value,payloads,match", [
    ([_meta((1 << 30,), (1,))], {"__kernelopt_frame__": 0}, [], "beyond the receiver's limit"),
    ([_meta((4, 4), (1, 1))], {"__kernelopt_frame__": 0}, [], "do not describe a dense tensor"),
    ([_meta((4, 4), (8, 1))], {"__kernelopt_frame__": 0}, [], "do not describe a dense tensor"),
    ([_meta((4,), (-1,))], {"__kernelopt_frame__": 0}, [], "non-negative integers"),
    ([_meta((4,), (1,), dtype="object")], {"__kernelopt_frame__": 0}, [], "dtype 'object'"),
    ([{"dtype": "float32", "shape": [4], "stride": [1], "via": "bytes", "path": "/etc/passwd"}], 0, [],
     "is not {dtype, shape"),
    ([_meta((4,), (1,), via="/etc/passwd")], {"__kernelopt_frame__": 0}, [], "sent via '/etc/passwd'"),
    ([_meta((0,), (1,))], {"__kernelopt_frame__": 0}, [], "an empty frame"),
    ([_meta((4,), (1,))], {"__kernelopt_frame__": 0}, [b"\0" * 12], "12 bytes where its header says 16"),
    ([_meta((4,), (1,))], [{"__kernelopt_frame__": 0}, {"__kernelopt_frame__": 0}], [b"\0" * 16],
     "names no frame"),
    ([_meta((4,), (1,))], {"__kernelopt_frame__": 1}, [b"\0" * 16], "names no frame"),
    ([_meta((4,), (1,))], "no reference", [b"\0" * 16], "a frame no value refers to"),
    ([], {"__kernelopt_frame__": 0}, [], "names no frame"),
])
def test_a_header_the_protocol_does_not_allow_is_refused_before_anything_is_allocated(pipe, frames, value,
                                                                                      payloads, match):
    a, b = pipe
    a.send_bytes(_header(frames, value))
    for p in payloads:
        a.send_bytes(p)
    with pytest.raises(wire.WireError, match=match):
        wire.receive(b, 64 * MIB)


_IPC = {"handle": b"\0" * 64, "offset": 0, "device": "GPU-00000000-0000-0000-0000-000000000000"}


@pytest.mark.parametrize("meta,takes,match", [
    ({**_meta((4,), (1,), via="cuda_ipc"), "ipc": _IPC}, False, "a device frame, which this receiver does not take"),
    (_meta((4,), (1,), via="cuda_ipc"), True, "is not {dtype, shape"),
    ({**_meta((4,), (1,)), "ipc": _IPC}, True, "is not {dtype, shape"),
    ({**_meta((4,), (1,), via="cuda_ipc"), "ipc": {**_IPC, "offset": -8}}, True, "handle is not {handle"),
    ({**_meta((4,), (1,), via="cuda_ipc"), "ipc": {**_IPC, "handle": b"\0"}}, True, "handle is not {handle"),
    ({**_meta((4,), (1,), via="cuda_ipc"), "ipc": {**_IPC, "path": "/dev/shm/x"}}, True, "handle is not {handle"),
    ({**_meta((4,), (1,), via="cuda_ipc"), "ipc": _IPC}, True, "no CUDA driver|a GPU this process does not see"),
])
def test_a_device_frame_is_taken_only_where_the_receiver_said_so_and_only_as_the_protocol_allows(pipe, meta, takes,
                                                                                                   match):
    """A device frame (a CUDA IPC handle, copied by the receiver on the GPU: tests/test_device_frames.py) reaches only
    a receiver that takes them, with a handle of exactly the driver's size, an offset and the GPU it lives on; its
    receiver never waits for its bytes on the connection (its sender waits for ``COPIED`` there)."""
    a, b = pipe
    a.send_bytes(_header([meta], {"__kernelopt_frame__": 0}))

    def wait(what):  # the caller's deadline: nothing more comes over the pipe
        raise TimeoutError(f"waited on the pipe for {what}, which a device frame does not send there")

    with pytest.raises(wire.WireError, match=match):
        wire.receive(b, 64 * MIB, wait, (lambda nbytes: True) if takes else None)


def test_a_message_longer_than_the_limit_is_not_read_and_a_missing_frame_is_waited_for_by_the_caller(pipe):
    a, b = pipe
    a.send_bytes(b"\0" * (64 << 10))  # fits the socket's buffer: sent without a reader
    with pytest.raises(OSError):
        wire.receive(b, 32 << 10)
    a2, b2 = mp.Pipe()
    a2.send_bytes(_header([_meta((4,), (1,))], {"__kernelopt_frame__": 0}))  # and never the frame
    waited = []

    def wait(what):
        waited.append(what)
        raise TimeoutError("the worker's time is up")

    with pytest.raises(TimeoutError):
        wire.receive(b2, MIB, wait)
    assert waited == ["frame 1 of 1"]
    a2.close()
    b2.close()


# --------------------------------------------------------------------------- frames as sealed memfds


def _memfd(data: bytes, seals: bool = True):
    import fcntl
    import os

    fd = os.memfd_create("test-frame", os.MFD_ALLOW_SEALING)
    os.write(fd, data)
    if seals:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, wire._SEALS())
    return fd


def _send_memfd_frame(a, fds, data=b"F"):
    import os
    import socket

    a.send_bytes(_header([_meta((4,), (1,), via="memfd")], {"__kernelopt_frame__": 0}))
    with socket.socket(fileno=os.dup(a.fileno())) as s:
        socket.send_fds(s, [data], fds)


def _open_fds():
    import os

    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def memfd_pipe(pipe):
    if not wire.memfd_frames(pipe[0]):
        pytest.skip("no sealed memfds on this platform")
    return pipe


def test_a_memfd_frame_is_the_senders_no_more_and_the_receivers_to_change(memfd_pipe):
    """After sending, the sender cannot write the frame (sealed); the receiver's tensor is its own to change
    (mapped copy-on-write) and the sender's bytes stay as they were."""
    import os

    a, b = memfd_pipe
    fd = _memfd(torch.arange(4.0).numpy().tobytes())
    _send_memfd_frame(a, [fd])
    t, _ = wire.receive(b, MIB)
    assert torch.equal(t, torch.arange(4.0))
    with pytest.raises(PermissionError):
        os.pwrite(fd, b"\xff" * 16, 0)
    with pytest.raises(PermissionError):
        os.ftruncate(fd, 0)
    t.add_(1)
    assert os.pread(fd, 16, 0) == torch.arange(4.0).numpy().tobytes()
    os.close(fd)


@pytest.mark.parametrize("make,match", [
    (lambda: [_memfd(b"\0" * 16, seals=False)], "not sealed against writes"),
    (lambda: [_memfd(b"\0" * 12)], "12 bytes where its header says 16"),
    (lambda: [_memfd(b"\0" * 4096)], "4096 bytes where its header says 16"),
    (lambda: [_memfd(b"\0" * 16), _memfd(b"\0" * 16)], "2 file descriptor"),
    (lambda: [], "0 file descriptor"),
    (lambda: [__import__("os").open("/proc/self/status", __import__("os").O_RDONLY)], "not a memfd"),
    (lambda: [__import__("os").dup(0)], "not a memfd"),
])
def test_a_memfd_frame_the_protocol_does_not_allow_is_refused_and_its_descriptors_closed(memfd_pipe, make, match):
    import os

    a, b = memfd_pipe
    before = _open_fds()
    fds = make()
    _send_memfd_frame(a, fds)
    for fd in fds:
        os.close(fd)
    with pytest.raises(wire.WireError, match=match):
        wire.receive(b, MIB)
    assert _open_fds() == before, "a descriptor the sender passed is still open in the receiver"


def test_a_memfd_frame_where_bytes_were_due_is_not_read_as_bytes(memfd_pipe):
    """A frame announced as bytes followed by a memfd: the receiver reads the one byte of that message as the start
    of a length, waits for the rest (the caller's deadline ends that; here the sender hangs up) and refuses it;
    the descriptor never reaches it (read without a control buffer, the kernel drops it)."""
    import os

    a, b = memfd_pipe
    before = _open_fds()
    fd = _memfd(b"\0" * 16)
    a.send_bytes(_header([_meta((4,), (1,))], {"__kernelopt_frame__": 0}))
    import socket

    with socket.socket(fileno=os.dup(a.fileno())) as s:
        socket.send_fds(s, [b"F"], [fd])
    os.close(fd)
    a.close()
    with pytest.raises((wire.WireError, OSError, EOFError)):
        wire.receive(b, MIB)
    assert _open_fds() == before - 1  # the sender's end, closed


class _FakeCudart:
    def __init__(self, result):
        self.result, self.calls = result, []

    def cudaHostRegister(self, ptr, size, flags):  # noqa: N802 - CUDA's name
        self.calls.append(("register", ptr, size))
        if isinstance(self.result, Exception):
            raise self.result
        return self.result

    def cudaHostUnregister(self, ptr):  # noqa: N802
        self.calls.append(("unregister", ptr))
        return 0


@pytest.mark.parametrize("result, pinned", [(0, True), (1, False), (RuntimeError("no CUDA"), False)])
def test_a_large_gpu_frame_is_copied_into_registered_memory_or_else_plainly(monkeypatch, result, pinned):
    """The memfd's mapping is registered with CUDA (page-locked) for the copy from a GPU and unregistered after;
    where registering fails the copy goes on unpinned.  (The calls, not the speed: no GPU here.)"""
    from types import SimpleNamespace

    fake = _FakeCudart(result)
    monkeypatch.setattr(torch.cuda, "cudart", lambda: fake)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: fake.calls.append(("sync",)))
    dst = torch.empty(wire.PIN_MIN, dtype=torch.uint8)
    src = SimpleNamespace(device=torch.device("cuda", 0))
    with wire._pinned(dst, src) as got:
        assert got is pinned
    expected = [("register", dst.data_ptr(), wire.PIN_MIN)]
    if pinned:
        expected += [("sync",), ("unregister", dst.data_ptr())]
    assert fake.calls == expected


def test_small_or_host_frames_are_never_registered(monkeypatch):
    from types import SimpleNamespace

    fake = _FakeCudart(0)
    monkeypatch.setattr(torch.cuda, "cudart", lambda: fake)
    small = torch.empty(wire.PIN_MIN - 1, dtype=torch.uint8)
    with wire._pinned(small, SimpleNamespace(device=torch.device("cuda", 0))) as got:
        assert got is False
    big = torch.empty(wire.PIN_MIN, dtype=torch.uint8)
    with wire._pinned(big, big) as got:  # a host tensor: nothing to pin for
        assert got is False
    assert fake.calls == []
