"""``libdevice.NAME(x, ...)``: CUDA's libdevice function ``__nv_NAMEf`` (fp32) or ``__nv_NAME``
(fp64), compiled inside kernels; any name resolves, as libdevice has hundreds."""

from ...core import _kernel_only


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _kernel_only(name, "libdevice")
