"""The GPU as the Python package sees it: PyTorch's current device and stream, and the CUDA driver
through ``tritium._tritium`` (``triton.runtime.driver.active``'s names)."""

import sys
from collections import namedtuple

from .. import _tritium

GPUTarget = namedtuple("GPUTarget", ["backend", "arch", "warp_size"])

#: What kernels compile for when there is no GPU to ask (compile-only use).
DEFAULT_ARCH = "sm_90a"

_devices = {}


def _torch():
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch  # noqa: F401
        except ImportError:
            return None
    return torch


def get_device(ordinal):
    """The native ``Device`` for ``ordinal`` (opened once); ``NoGpuError`` without a GPU."""
    device = _devices.get(ordinal)
    if device is None:
        device = _devices[ordinal] = _tritium.Device(ordinal)
    return device


def arch_or_default(ordinal):
    """The device's architecture (``sm_90a`` on an H100/H200), or ``DEFAULT_ARCH`` without one."""
    try:
        return get_device(ordinal).arch
    except _tritium.NoGpuError:
        return DEFAULT_ARCH


class _Utils:
    def get_device_properties(self, device):
        d = get_device(device)
        return {
            "multiprocessor_count": d.sm_count,
            "max_shared_mem": d.max_shared,
            "max_num_regs": 65536,
            "warpSize": 32,
        }


class CudaDriver:
    """``triton.runtime.driver.active`` for NVIDIA GPUs."""

    def __init__(self):
        self.utils = _Utils()
        torch = _torch()
        if torch is not None and torch.cuda.is_available():
            self._current_device = torch.cuda.current_device
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
            self._current_stream = raw if raw is not None else (
                lambda idx: torch.cuda.current_stream(idx).cuda_stream)
        else:
            self._current_device = lambda: 0
            self._current_stream = lambda idx: 0

    def is_active(self):
        return True

    def get_current_device(self):
        return self._current_device()

    def set_current_device(self, device):
        _torch().cuda.set_device(device)

    def get_current_stream(self, device=None):
        if device is None:
            device = self.get_current_device()
        return self._current_stream(device)

    def get_current_target(self):
        arch = arch_or_default(self.get_current_device())
        capability = int("".join(c for c in arch if c.isdigit()))
        return GPUTarget("cuda", capability, 32)

    def get_active_torch_device(self):
        return _torch().device("cuda", self.get_current_device())

    def get_device_interface(self):
        return _torch().cuda

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        torch = _torch()
        return torch.empty(int(256e6 // 4), dtype=torch.int, device="cuda")

    def clear_cache(self, cache):
        cache.zero_()


class _DriverConfig:
    def __init__(self):
        self._active = None

    @property
    def active(self):
        if self._active is None:
            self._active = CudaDriver()
        return self._active

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = None


driver = _DriverConfig()
