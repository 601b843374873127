"""Tritium's Python package: run Triton kernels on PyTorch tensors through Tritium.

``import tritium as triton`` and ``import tritium.language as tl`` in place of Triton's imports;
``@triton.jit`` kernels, ``kernel[grid](...)``, ``triton.autotune``, ``triton.heuristics``,
``triton.Config``, ``triton.cdiv``, ``triton.testing.do_bench`` work as in Triton 3.6. Kernels
are compiled by Tritium (Rust, MLIR 22, LLVM's NVPTX backend in process: no CUDA toolkit) and
launched through the CUDA driver on ``torch.cuda.current_stream()``. See docs/python.md.
"""

from . import _tritium
from ._tritium import __version__  # noqa: F401
from .runtime import (  # noqa: F401
    Autotuner,
    CompilationError,
    Config,
    DriverError,
    Heuristics,
    JITFunction,
    KernelInterface,
    NoGpuError,
    OutOfResources,
    autotune,
    heuristics,
    jit,
)
from . import language, runtime, testing, compiler  # noqa: F401
from .compiler import ASTSource, CompiledKernel, compile  # noqa: F401
from .runtime.gpu import GPUTarget  # noqa: F401
from .runtime.jit import set_allocator  # noqa: F401


def cdiv(x, y):
    """``ceil(x / y)`` for integers."""
    return (x + y - 1) // y


def next_power_of_2(n):
    """The smallest power of two ``>= n`` (1 for ``n <= 1``)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


__all__ = ["jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2", "compile",
           "ASTSource", "CompiledKernel", "CompilationError", "OutOfResources", "NoGpuError",
           "DriverError", "JITFunction", "KernelInterface", "Autotuner", "Heuristics", "language",
           "testing", "runtime", "compiler", "GPUTarget", "set_allocator"]
