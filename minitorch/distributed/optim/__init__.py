"""``minitorch.distributed.optim``: ``ZeroRedundancyOptimizer`` (ZeRO-1, optimizer state sharded over the ranks)."""

from minitorch.distributed.optim.zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
