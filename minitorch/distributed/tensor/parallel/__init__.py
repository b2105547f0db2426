"""``minitorch.distributed.tensor.parallel``: tensor parallelism (Megatron-LM's split Linear layers).

    mesh = init_device_mesh("cpu", (world_size,))
    parallelize_module(mlp, mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    y = mlp(x)            # x the same on every rank; y the one-process output, on every rank

See ``style.py`` for where each all-reduce goes and why.
"""

from minitorch.distributed.tensor.parallel.api import parallelize_module
from minitorch.distributed.tensor.parallel.style import ColwiseParallel, ParallelStyle, RowwiseParallel

__all__ = ["ColwiseParallel", "ParallelStyle", "RowwiseParallel", "parallelize_module"]
