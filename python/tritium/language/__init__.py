"""``import tritium.language as tl``: the names of ``triton.language`` that Tritium compiles.

Kernel bodies are never run by Python: Tritium's front end reads their source and compiles
every ``tl.*`` call itself. These names exist so that a kernel module imports and its
annotations (``BLOCK: tl.constexpr``) and constexpr globals (``tl.float16``, ``N =
tl.constexpr(4)``) evaluate, as with Triton; calling one outside a ``@tritium.jit`` function is
an error, as in Triton.
"""

from .core import (  # noqa: F401
    constexpr,
    dtype,
    pointer_type,
    block_type,
    tensor,
    int1,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float8e4nv,
    float8e5,
    float16,
    bfloat16,
    float32,
    float64,
    void,
    _kernel_only,
    FUNCTIONS,
)
from . import math, extra  # noqa: F401

_dtypes = ("int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float8e4nv", "float8e5", "float16", "bfloat16", "float32", "float64", "void")

for _name in FUNCTIONS:
    if _name not in globals() and _name != "pointer_type":
        globals()[_name] = _kernel_only(_name)

__all__ = sorted(set(FUNCTIONS) | set(_dtypes) | {"constexpr", "dtype", "tensor", "block_type",
                                                  "pointer_type", "math", "extra"})
del _name
