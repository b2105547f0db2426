"""``torch.utils.data.dataloader``'s path to the DataLoader and its collate functions."""

from minitorch.data import DataLoader, default_collate, default_convert

__all__ = ["DataLoader", "default_collate", "default_convert"]
