"""``minitorch.utils.data``: PyTorch's path to ``Dataset``, ``TensorDataset`` and ``DataLoader``.

The very same classes as ``minitorch.data`` (where MiniTorch's lessons import them from),
so ``from torch.utils.data import DataLoader`` in a PyTorch script finds them here.
"""

from minitorch.data import DataLoader, Dataset, DistributedSampler, TensorDataset, default_collate

__all__ = ["DataLoader", "Dataset", "DistributedSampler", "TensorDataset", "default_collate"]
