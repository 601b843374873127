"""Host-side helpers, as ``triton.tools``: ``tensor_descriptor.TensorDescriptor``."""
