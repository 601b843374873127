"""Types and functions of ``tritium.language`` (``triton.language.core``'s names)."""

from .._tritium import language_functions as _language_functions

#: Every ``tl.NAME`` the front end compiles (from the compiler itself).
FUNCTIONS = tuple(_language_functions())


class constexpr:
    """A compile-time value: ``BLOCK: tl.constexpr`` parameters, ``N = tl.constexpr(4)``."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, constexpr) else other)

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return bool(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)


class dtype:
    """An element type, named as Triton names it (``fp32``, ``int32``, ``bf16``, ...)."""

    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4nv", "fp8e5", "fp16", "bf16", "fp32", "fp64"]

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"triton.language.{_PY_NAMES.get(self.name, self.name)}"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, dtype) and self.name == other.name

    def __hash__(self):
        return hash(("dtype", self.name))

    def is_floating(self):
        return self.name in dtype.FP_TYPES

    def is_int(self):
        return self.name in dtype.SINT_TYPES + dtype.UINT_TYPES

    def is_int_signed(self):
        return self.name in dtype.SINT_TYPES

    def is_int_unsigned(self):
        return self.name in dtype.UINT_TYPES

    def is_ptr(self):
        return False

    @property
    def primitive_bitwidth(self):
        return _BITS[self.name]

    def to_ir(self, builder):
        raise RuntimeError("tritium builds IR in its Rust front end")


class pointer_type(dtype):
    """``tl.pointer_type(tl.float32)``: a pointer to global memory."""

    def __init__(self, element_ty, address_space=1, const=False):
        super().__init__(f"pointer<{element_ty.name}>")
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const

    def is_ptr(self):
        return True


class block_type(dtype):
    def __init__(self, element_ty, shape):
        super().__init__(f"<{shape}, {element_ty.name}>")
        self.element_ty = element_ty
        self.shape = tuple(shape)


class tensor:
    """The type of values inside a kernel (annotations only: kernels are compiled, not run)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tl.tensor values exist only inside a @tritium.jit function")


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
void = dtype("void")

_BITS = {"int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16,
         "uint32": 32, "uint64": 64, "fp8e4nv": 8, "fp8e5": 8, "fp16": 16, "bf16": 16, "fp32": 32,
         "fp64": 64, "void": 0}

_PY_NAMES = {"fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp16": "float16", "bf16": "bfloat16",
             "fp32": "float32", "fp64": "float64"}


def _kernel_only(name, module="tl"):
    def function(*args, **kwargs):
        raise RuntimeError(
            f"{module}.{name} can only be called inside a @tritium.jit function (kernels are compiled, "
            "not run by Python)")

    function.__name__ = name
    function.__qualname__ = name
    function.__doc__ = f"``{module}.{name}``: compiled by Tritium's front end inside kernels."
    return function
