import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


class FakeDtype:
    """A stand-in for ``torch.float32`` etc. (the package reads dtypes by ``str``)."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class FakeTensor:
    """Duck-typed like a PyTorch tensor: ``data_ptr()``, ``dtype``, ``is_cuda``, ``device``.
    The tests need no PyTorch and no GPU."""

    def __init__(self, ptr=0x7F0000000000, dtype="float32", device="cuda"):
        self.ptr = ptr
        self.dtype = FakeDtype(dtype)
        self.device = device
        self.is_cuda = device.startswith("cuda")

    def data_ptr(self):
        return self.ptr

    def element_size(self):
        name = self.dtype.name
        return 8 if name.endswith("64") else 4 if name.endswith("32") else \
            2 if name.endswith("16") else 1


@pytest.fixture
def fake_tensor():
    return FakeTensor


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Each test compiles into its own on-disk cache."""
    monkeypatch.setenv("TRITIUM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TRITON_ALWAYS_COMPILE", raising=False)
    return tmp_path / "cache"


def has_gpu():
    import tritium
    try:
        tritium._tritium.Device(0)
        return True
    except tritium.NoGpuError:
        return False
