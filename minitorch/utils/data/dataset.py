"""``torch.utils.data.dataset``'s path to ``Dataset`` and ``TensorDataset``."""

from minitorch.data import Dataset, TensorDataset

__all__ = ["Dataset", "TensorDataset"]
