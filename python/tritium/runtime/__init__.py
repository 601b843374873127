from .jit import JITFunction, KernelInterface, jit  # noqa: F401
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .gpu import driver, GPUTarget  # noqa: F401
from .errors import OutOfResources, CompilationError, NoGpuError, DriverError  # noqa: F401

__all__ = ["JITFunction", "KernelInterface", "jit", "Autotuner", "Config", "Heuristics", "autotune",
           "heuristics", "driver", "GPUTarget", "OutOfResources", "CompilationError", "NoGpuError",
           "DriverError"]
