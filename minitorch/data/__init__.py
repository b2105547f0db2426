"""``minitorch.data``: datasets and the DataLoader that cuts them into (shuffled) batches.

A ``Dataset`` answers ``len(ds)`` and ``ds[i]``. ``TensorDataset(X, y)`` wraps tensors
whose first dimension indexes samples; for it the DataLoader takes a whole batch with one
fancy index (``X[batch_indices]``) instead of a Python loop over samples.
"""

import numpy as np

from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.random import default_generator
from minitorch.tensor import Tensor


class Dataset:
    """Base class: define ``__len__`` and ``__getitem__(i)`` returning one sample."""

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")


class TensorDataset(Dataset):
    """Samples are rows of the given tensors: ``ds[i] == (X[i], y[i])``."""

    def __init__(self, *tensors):
        if not tensors:
            raise MiniTorchError("TensorDataset needs at least one tensor")
        tensors = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in tensors)
        n = tensors[0].shape[0] if tensors[0].ndim else None
        for t in tensors:
            if t.ndim == 0 or t.shape[0] != n:
                shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
                raise MiniTorchError(f"TensorDataset: all tensors need the same first dimension, got shapes {shapes}")
        self.tensors = tensors

    def __len__(self):
        return self.tensors[0].shape[0]

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def take(self, indices):
        """A whole batch at once: every tensor indexed by the integer array ``indices``."""
        out = []
        for t in self.tensors:
            idx = backends.to_device(indices, t.device)
            out.append(Tensor._make(t.data[idx], None, False))
        return tuple(out)


def default_collate(samples):
    """Stack a list of samples (tuples of tensors or numbers) into one batch per field."""
    first = samples[0]
    if isinstance(first, (tuple, list)):
        return tuple(default_collate([s[i] for s in samples]) for i in range(len(first)))
    if isinstance(first, Tensor):
        xp = backends.module_of(first.data)
        return Tensor._make(xp.stack([s.data for s in samples]), None, False)
    return Tensor(np.asarray(samples))


class DataLoader:
    """Iterate over a dataset in batches: ``for x, y in DataLoader(ds, batch_size=64, shuffle=True, seed=0)``.

    With ``shuffle`` the order is redrawn every epoch from a generator created once (from
    ``seed``, or from ``minitorch.manual_seed``'s generator when ``seed`` is None), so a
    seeded run is repeatable and each epoch still sees a new order. ``drop_last`` skips
    the final, smaller batch.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, seed=None, collate_fn=None):
        if batch_size < 1:
            raise MiniTorchError(f"DataLoader: batch_size must be >= 1, got {batch_size}")
        self.dataset, self.batch_size = dataset, int(batch_size)
        self.shuffle, self.drop_last = shuffle, drop_last
        self.collate_fn = collate_fn or default_collate
        self._rng = np.random.default_rng(seed) if seed is not None else None

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _order(self):
        n = len(self.dataset)
        if not self.shuffle:
            return np.arange(n)
        rng = self._rng if self._rng is not None else default_generator()
        return rng.permutation(n)

    def __iter__(self):
        order = self._order()
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            if self.drop_last and len(batch) < self.batch_size:
                return
            if fast:
                yield self.dataset.take(batch)
            else:
                yield self.collate_fn([self.dataset[int(i)] for i in batch])
