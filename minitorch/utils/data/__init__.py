"""``minitorch.utils.data``: PyTorch's path to ``Dataset``, ``TensorDataset``, ``DataLoader`` and the samplers.

The very same classes as ``minitorch.data`` (where MiniTorch's lessons import them from),
so ``from torch.utils.data import DataLoader`` in a PyTorch script finds them here, and so
do PyTorch's file paths (``torch.utils.data.dataloader``, ``.dataset``, ``.sampler``).
"""

from minitorch.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
    default_collate,
)
from minitorch.utils.data import dataloader, dataset, sampler

__all__ = [
    "BatchSampler",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "TensorDataset",
    "dataloader",
    "dataset",
    "default_collate",
    "sampler",
]
