"""``tl.extra``: ``from tritium.language.extra import libdevice`` (fp32 and fp64)."""

from . import cuda  # noqa: F401
from .cuda import libdevice  # noqa: F401
