"""Registers of the kernels a JIT function compiled, for the sweep scripts (Triton's and
Tritium's caches alike)."""


def jit_function(kernel):
    """The JIT function under an autotuner's or heuristics' wrappers."""
    while not hasattr(kernel, "device_caches"):  # autotuned or heuristics-wrapped
        kernel = kernel.fn
    return kernel


def registers(jit):
    """`regs/spills` of every kernel in the JIT function's caches (Triton keeps a tuple a
    device, its first entry the kernels; Tritium a dict of kernels)."""
    found = set()
    try:
        for cache in jit.device_caches.values():
            kernels = cache[0] if isinstance(cache, tuple) else cache
            for compiled in kernels.values():
                entry = f"{compiled.n_regs}/{compiled.n_spills}"
                # Tritium's second build for occupancy, which the grids it suits run.
                handles = getattr(compiled, "_init_handles", None)
                second = getattr(handles(), "occupancy_n_regs", None) if handles else None
                if second is not None:
                    entry += f"+{second}@{handles().occupancy_hint}"
                found.add(entry)
    except (AttributeError, TypeError, IndexError):  # another version's cache layout
        return "?"
    return ",".join(sorted(found)) or "?"
