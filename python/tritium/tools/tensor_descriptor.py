"""``TensorDescriptor``: a host-side TMA descriptor argument, as Triton 3.6's
``triton.tools.tensor_descriptor.TensorDescriptor``.

A kernel parameter given one is specialized as ``tensordesc<DTYPE[BLOCK]>``; at each launch the
runtime encodes the tensor map with the driver (``cuTensorMapEncodeTiled``) for the block and
swizzle the compiler chose, and passes it by value followed by the shape and strides.
"""

from dataclasses import dataclass
from typing import Any, List

__all__ = ["TensorDescriptor"]


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        rank = len(self.shape)
        if not 1 <= rank <= 5:
            raise ValueError(f"a tensor descriptor has 1 to 5 dims, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"shape {list(self.shape)}, strides {list(self.strides)} and "
                             f"block_shape {list(self.block_shape)} must have one entry per dim")
        if self.base.data_ptr() % 16:
            raise ValueError("a tensor descriptor's base must be 16-byte aligned")
        for b in self.block_shape:
            if b <= 0 or b & (b - 1):
                raise ValueError(f"block dims must be powers of two, got {list(self.block_shape)}")
        if self.strides[-1] != 1:
            raise ValueError("a tensor descriptor's last dim must be contiguous (stride 1)")
        elem = self.base.element_size()
        for s in self.strides[:-1]:
            if (s * elem) % 16:
                raise ValueError(f"strides {list(self.strides)}: all but the last must be "
                                 "multiples of 16 bytes")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"padding must be 'zero' or 'nan', got {self.padding!r}")

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        """A descriptor of the whole of ``tensor`` (its shape and strides), moving blocks of
        ``block_shape``."""
        return TensorDescriptor(tensor, list(tensor.shape), list(tensor.stride()),
                                list(block_shape), padding)
