"""The package's exceptions (Triton's names where Triton has one)."""

from .._tritium import CompilationError, DriverError, NoGpuError  # noqa: F401


class OutOfResources(Exception):
    """A kernel needs more of a resource (shared memory) than the GPU has; the autotuner skips
    such configs."""

    def __init__(self, required, limit, name):
        self.required = required
        self.limit = limit
        self.name = name
        super().__init__(f"out of resource: {name}, Required: {required}, Hardware limit: {limit}. "
                         "Reducing block sizes or `num_stages` may help.")

    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name))
