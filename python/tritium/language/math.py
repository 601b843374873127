"""``tl.math``: the math functions the front end compiles."""

from .core import _kernel_only

_NAMES = ("exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "sqrt_rn", "rsqrt", "abs", "floor",
          "ceil", "erf", "sigmoid", "fma", "div_rn", "fdiv", "umulhi", "maximum", "minimum", "clamp")
for _name in _NAMES:
    globals()[_name] = _kernel_only(_name, "tl.math")
__all__ = list(_NAMES)
del _name
