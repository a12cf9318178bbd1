"""A GPU tensor handed to another process on the same GPU by a CUDA IPC handle: the receiver copies it on the device.

The lowest layer of :mod:`pytest_kernelopt.wire`'s device frames, through the CUDA driver's own calls
(``cuIpcGetMemHandle``, ``cuIpcOpenMemHandle``, ``cuMemGetAddressRange``, read with :mod:`ctypes`): no pickles, no
shared files.  The sender describes a tensor by its allocation's handle and the tensor's byte offset in it
(:func:`export`); the receiver opens the handle, checks that the tensor's bytes lie within the allocation the driver
mapped (a header can claim any size; the driver's range cannot be faked), copies them into memory of its own on
the device (or the host) and closes the handle (:func:`copy_in`).  The sender keeps the tensor alive until the
receiver says it has copied (:func:`pytest_kernelopt.wire.send` waits for that), so what the receiver holds was
made before the sender ran anything else, and nothing the sender runs later can reach it: it lives in the
receiver's own allocation.

Where the driver, the handle or the device cannot serve (no ``libcuda``, the caching allocator's expandable
segments, another GPU), :func:`export` returns None and the sender falls back to a host frame.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

#: the bytes of a ``CUipcMemHandle``
HANDLE_BYTES = 64
#: ``CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS``
_LAZY_PEER = 1


class _Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * HANDLE_BYTES)]


@functools.cache
def _driver() -> Any:
    """The CUDA driver library, its calls typed; None where it cannot be loaded."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    ptr = ctypes.c_uint64
    lib.cuIpcGetMemHandle.argtypes = [ctypes.POINTER(_Handle), ptr]
    lib.cuIpcOpenMemHandle_v2.argtypes = [ctypes.POINTER(ptr), _Handle, ctypes.c_uint]
    lib.cuIpcCloseMemHandle.argtypes = [ptr]
    lib.cuMemGetAddressRange_v2.argtypes = [ctypes.POINTER(ptr), ctypes.POINTER(ctypes.c_size_t), ptr]
    for name in ("cuIpcGetMemHandle", "cuIpcOpenMemHandle_v2", "cuIpcCloseMemHandle", "cuMemGetAddressRange_v2"):
        getattr(lib, name).restype = ctypes.c_int
    return lib


def device_uuid(index: int) -> str:
    import torch

    return str(torch.cuda.get_device_properties(index).uuid)


def export(t: Any) -> dict[str, Any] | None:
    """What a receiver on the same GPU needs to copy the dense CUDA tensor ``t`` (its first element's byte at the
    lowest address): ``{"handle", "offset", "device"}``; None where the driver cannot hand it out.  The caller
    keeps ``t`` alive until the receiver has copied it, and has synchronized the work that wrote it."""
    lib = _driver()
    if lib is None or t.device.type != "cuda":
        return None
    import torch

    with torch.cuda.device(t.device):
        handle, base, size = _Handle(), ctypes.c_uint64(), ctypes.c_size_t()
        ptr = ctypes.c_uint64(t.data_ptr())
        if lib.cuIpcGetMemHandle(ctypes.byref(handle), ptr) != 0:
            return None
        if lib.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ptr) != 0:
            return None
        return {"handle": bytes(handle), "offset": int(ptr.value - base.value),
                "device": device_uuid(t.device.index or 0)}


def _device_of(uuid: str) -> int | None:
    import torch

    for i in range(torch.cuda.device_count()):
        if device_uuid(i) == uuid:
            return i
    return None


class DeviceFrameError(ValueError):
    """A device frame this process cannot copy (another GPU, a handle the driver refuses, bytes past the
    allocation)."""


def copy_in(ipc: Any, nbytes: int, on_device: Any) -> Any:
    """The ``nbytes`` bytes at ``ipc``'s offset in the allocation its handle names, copied into this process's own
    memory as a 1-D uint8 tensor: on the GPU where ``on_device(nbytes)`` says so, else on the host.  The handle is
    closed before it returns."""
    import torch

    if not isinstance(ipc, dict) or set(ipc) != {"handle", "offset", "device"} or type(ipc["handle"]) is not bytes \
            or len(ipc["handle"]) != HANDLE_BYTES or type(ipc["offset"]) is not int or ipc["offset"] < 0 \
            or type(ipc["device"]) is not str:
        raise DeviceFrameError(f"a device frame's handle is not {{handle, offset, device}}: {ipc!r:.120}")
    lib = _driver()
    if lib is None or not torch.cuda.is_available():
        raise DeviceFrameError("a device frame, and this process has no CUDA driver")
    index = _device_of(ipc["device"])
    if index is None:
        raise DeviceFrameError(f"a device frame on a GPU this process does not see ({ipc['device']:.40})")
    with torch.cuda.device(index):
        torch.cuda.init()
        torch.empty(1, device="cuda")  # the device's primary context current on this thread
        handle = _Handle.from_buffer_copy(ipc["handle"])
        mapped = ctypes.c_uint64()
        if lib.cuIpcOpenMemHandle_v2(ctypes.byref(mapped), handle, _LAZY_PEER) != 0:
            raise DeviceFrameError("the CUDA driver refused a device frame's handle")
        try:
            base, size = ctypes.c_uint64(), ctypes.c_size_t()
            if lib.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), mapped) != 0:
                raise DeviceFrameError("the CUDA driver has no range for a device frame's allocation")
            start = mapped.value + ipc["offset"]
            if start + nbytes > base.value + size.value:
                raise DeviceFrameError(f"a device frame of {nbytes} bytes at offset {ipc['offset']} runs past its "
                                       f"allocation of {size.value} bytes")
            src = torch.as_tensor(_CudaBytes(start, nbytes), device=f"cuda:{index}")
            dst = torch.empty(nbytes, dtype=torch.uint8, device=f"cuda:{index}" if on_device(nbytes) else "cpu")
            dst.copy_(src)
            torch.cuda.synchronize(index)
            del src
        finally:
            lib.cuIpcCloseMemHandle(mapped)
    return dst


class _CudaBytes:
    """``nbytes`` bytes of device memory at ``ptr``, as ``__cuda_array_interface__`` describes them (no copy)."""

    def __init__(self, ptr: int, nbytes: int) -> None:
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False), "version": 3,
                                         "strides": None, "stream": None}
