"""``minitorch.data``: datasets and the DataLoader that cuts them into (shuffled) batches.

``DataLoader(ds, sampler=DistributedSampler(ds))`` loads only this rank's share
(``distributed.py``). A ``Dataset`` answers ``len(ds)`` and ``ds[i]``. ``TensorDataset(X, y)`` wraps tensors
whose first dimension indexes samples; for it the DataLoader takes a whole batch with one
fancy index (``X[batch_indices]``) instead of a Python loop over samples.
"""

import itertools
import numbers

import numpy as np

from minitorch import backends
from minitorch.errors import MiniTorchError, MiniTorchIndexError
from minitorch.random import Generator, generator_or_default
from minitorch.random import transforms as random_transforms
from minitorch.tensor import Tensor


class Dataset:
    """Base class: define ``__len__`` and ``__getitem__(i)`` returning one sample."""

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")


class SizeMismatchError(MiniTorchError, AssertionError):
    """Tensors of a TensorDataset with different first dimensions (PyTorch asserts it: an AssertionError)."""


class TensorDataset(Dataset):
    """Samples are rows of the given tensors: ``ds[i] == (X[i], y[i])``."""

    def __init__(self, *tensors):
        if not tensors:
            raise MiniTorchError("TensorDataset needs at least one tensor")
        tensors = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in tensors)
        shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
        if any(t.ndim == 0 for t in tensors):  # PyTorch: IndexError from size(0)
            raise MiniTorchIndexError(
                f"TensorDataset: every tensor needs a first dimension that indexes the samples, got shapes {shapes}"
            )
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise SizeMismatchError(
                f"TensorDataset: Size mismatch between tensors: all need the same first dimension, got shapes {shapes}"
            )
        self.tensors = tensors

    def __len__(self):
        return self.tensors[0].shape[0]

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def take(self, indices):
        """A whole batch at once: every tensor indexed by the integer array ``indices`` (a list, as PyTorch's)."""
        out = []
        for t in self.tensors:
            data = t.data
            # Host data takes the host indices as they are; device data gets them uploaded once.
            idx = indices if type(data) is np.ndarray else backends.to_device(indices, backends.device_of(data))
            out.append(Tensor._make(data[idx], None, False))
        return out


class CollateError(MiniTorchError):
    """Samples of one batch that cannot be stacked; ``entries`` are their positions in the batch."""

    def __init__(self, message, entries):
        super().__init__(message)
        self.entries = entries


def _array_of(sample):
    if isinstance(sample, Tensor):
        return sample.data
    return sample if isinstance(sample, np.ndarray) else None


def default_collate(samples):
    """Stack a list of samples into one batch per field, as PyTorch's ``default_collate``.

    Tensors and arrays are stacked (all must have one shape), numbers become a tensor, tuples,
    lists and dicts are collated field by field, strings are returned as a list. Tuples and
    lists of fields give a list (a namedtuple stays one), as in PyTorch.
    """
    first = samples[0]
    if isinstance(first, (tuple, list)):
        for i, s in enumerate(samples):
            if not isinstance(s, (tuple, list)) or len(s) != len(first):
                raise CollateError(
                    f"default_collate: entry {i} of the batch is {_describe(s)}, entry 0 is a "
                    f"{type(first).__name__} of {len(first)} fields: every sample needs the same structure",
                    (0, i),
                )
        fields = [default_collate([s[i] for s in samples]) for i in range(len(first))]
        return type(first)(*fields) if hasattr(first, "_fields") else fields
    if isinstance(first, dict):
        return {key: default_collate([s[key] for s in samples]) for key in first}
    if isinstance(first, str):
        return list(samples)
    array = _array_of(first)
    if array is not None:
        for i, s in enumerate(samples):
            other = _array_of(s)
            if other is None or other.shape != array.shape:
                raise CollateError(
                    f"default_collate: samples in one batch must have the same shape to be stacked, but entry "
                    f"{i} is {_describe(s)} and entry 0 has shape {tuple(array.shape)} (pad or crop them to "
                    "one size, or pass a collate_fn)",
                    (0, i),
                )
        if isinstance(first, Tensor):
            xp = backends.module_of(first.data)
            return Tensor._make(xp.stack([s.data for s in samples]), None, False)
        return Tensor(np.stack(samples))
    if not all(isinstance(s, (bool, int, float, np.generic)) for s in samples):
        bad = next(i for i, s in enumerate(samples) if not isinstance(s, (bool, int, float, np.generic)))
        raise TypeError(
            f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; entry {bad} "
            f"is {_describe(samples[bad])}"
        )
    return Tensor(np.asarray(samples))


def default_convert(sample):
    """One sample as the DataLoader gives it with ``batch_size=None`` (PyTorch's ``default_convert``).

    Arrays and NumPy numbers become tensors, tuples become lists (a namedtuple stays one),
    lists and dicts are converted field by field; Python numbers and strings stay as they are.
    """
    if isinstance(sample, np.ndarray) and sample.dtype.kind in "biuf":
        return Tensor(sample)
    if isinstance(sample, np.generic) and sample.dtype.kind in "biuf":
        return Tensor(np.asarray(sample))
    if isinstance(sample, dict):
        return {key: default_convert(value) for key, value in sample.items()}
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):
        return type(sample)(*(default_convert(v) for v in sample))
    if isinstance(sample, (tuple, list)):
        return [default_convert(v) for v in sample]
    return sample


def _describe(sample):
    shape = getattr(sample, "shape", None)
    if shape is not None:
        return f"a {type(sample).__name__} of shape {tuple(shape)}"
    return f"a {type(sample).__name__}"


class DataLoader:
    """Iterate over a dataset in batches: ``for x, y in DataLoader(ds, batch_size=64, shuffle=True, seed=0)``.

    With ``shuffle`` the order is redrawn every epoch, drawn as PyTorch's DataLoader and
    RandomSampler draw it: from ``generator`` (or one made once from ``seed``), else from a
    generator seeded by a draw from ``minitorch.manual_seed``'s. So after the same seed the
    batches are PyTorch's, and each epoch still sees a new order. As in PyTorch, every epoch
    also draws one number from that generator (PyTorch's seed for its worker processes),
    shuffled or not. ``sampler`` (a RandomSampler, a DistributedSampler ...) is read lazily,
    one batch of indices at a time. ``drop_last`` skips the final, smaller batch.
    ``num_workers`` and ``pin_memory`` are accepted as PyTorch's (speed settings): batches
    are always loaded in this process, with the same result.
    """

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=False,
        drop_last=False,
        seed=None,
        collate_fn=None,
        sampler=None,
        num_workers=0,
        pin_memory=False,
        generator=None,
    ):
        if not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")):
            raise TypeError(
                f"DataLoader: the dataset must define __len__ and __getitem__, got {type(dataset).__name__}; "
                "wrap tensors with minitorch.data.TensorDataset(X, y)"
            )
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1
        ):
            raise ValueError(
                f"DataLoader: batch_size should be a positive integer value, but got batch_size={batch_size!r}"
                + (" (use // to divide sizes)" if isinstance(batch_size, float) else "")
            )
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if not isinstance(drop_last, bool):
            raise ValueError(f"DataLoader: drop_last should be a boolean value, but got drop_last={drop_last!r}")
        if isinstance(num_workers, bool) or not isinstance(num_workers, numbers.Integral) or num_workers < 0:
            raise ValueError(
                "DataLoader: num_workers option should be non-negative; use num_workers=0 to disable "
                f"multiprocessing (got {num_workers!r})"
            )
        if batch_size is None and drop_last:
            raise ValueError(
                "DataLoader: batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
            )
        # batch_size=None: no batching, each sample converted (arrays to tensors), as PyTorch
        self.dataset, self.batch_size = dataset, None if batch_size is None else int(batch_size)
        self.shuffle, self.drop_last = shuffle, drop_last
        self.sampler = sampler  # yields the indices to load, in order (DistributedSampler: one rank's share)
        self.collate_fn = collate_fn or (default_convert if batch_size is None else default_collate)
        if seed is not None and generator is not None:
            raise ValueError("DataLoader: give either seed or generator, not both")
        self.generator = Generator().manual_seed(seed) if seed is not None else generator
        generator_or_default(self.generator, "DataLoader")  # a wrong type fails here, not mid-epoch

    def __len__(self):
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def _indices(self):
        """The indices to load, as an iterator: a sampler is read lazily, batch by batch."""
        if self.sampler is not None:
            return iter(self.sampler)
        if not self.shuffle:
            return iter(range(len(self.dataset)))
        # PyTorch's DataLoader(shuffle=True) reads a RandomSampler over the dataset, with its generator.
        return iter(RandomSampler(self.dataset, generator=self.generator))

    def _check_sampled(self, batch):
        """A sampler's index past the end of a TensorDataset: say so here, not as NumPy's IndexError."""
        n = len(self.dataset)
        bad = batch[(batch >= n) | (batch < -n)]
        if bad.size:
            raise MiniTorchIndexError(
                f"DataLoader: the sampler {type(self.sampler).__name__} gave index {int(bad[0])}, but the dataset "
                f"has {n} samples (indices 0 to {n - 1}); check the sampler's indices or the dataset"
            )

    def __iter__(self):
        # PyTorch draws a base seed for its workers at the start of every epoch, before the
        # sampler draws anything: drawn here too, so the generators are where PyTorch's are.
        random_transforms.random_int64(generator_or_default(self.generator, "DataLoader"))
        indices = self._indices()
        if self.batch_size is None:
            for i in indices:
                yield self.collate_fn(self.dataset[int(i)])
            return
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate
        check = self.sampler is not None and isinstance(self.dataset, TensorDataset)
        chunks = self._index_arrays() if fast else None
        if chunks is not None:  # the indices as arrays, each batch a slice of them
            for batch in self._array_batches(chunks):
                if check:
                    self._check_sampled(batch)
                yield self.dataset.take(batch)
            return
        # One batch of indices at a time: RandomSampler(replacement=True, num_samples=10**10)
        # yields its first batch at once instead of first drawing ten billion indices.
        while True:
            batch = np.fromiter(itertools.islice(indices, self.batch_size), dtype=np.int64)
            if len(batch) == 0 or (self.drop_last and len(batch) < self.batch_size):
                return
            if check:
                self._check_sampled(batch)
            if fast:
                yield self.dataset.take(batch)
            else:
                yield self._collate(batch)
            if len(batch) < self.batch_size:  # the sampler ran out (and finished its pass)
                return

    def _index_arrays(self):
        """The indices as int64 arrays, where the sampler draws them so (its own, Random or Sequential), else None."""
        sampler = self.sampler
        if sampler is None and self.shuffle:
            sampler = RandomSampler(self.dataset, generator=self.generator)
        elif sampler is None:
            sampler = SequentialSampler(self.dataset)
        if type(sampler) in (RandomSampler, SequentialSampler):  # (a subclass may change __iter__)
            return sampler.index_arrays()
        return None

    def _array_batches(self, chunks):
        """Batches cut from the arrays ``chunks``, taken lazily: as many indices as a batch needs."""
        size, pending = self.batch_size, None
        for chunk in chunks:
            pending = chunk if pending is None or not len(pending) else np.concatenate([pending, chunk])
            while len(pending) >= size:
                batch, pending = pending[:size], pending[size:]
                yield batch
        if pending is not None and len(pending) and not self.drop_last:
            yield pending

    def _collate(self, batch):
        try:
            return self.collate_fn([self.dataset[int(i)] for i in batch])
        except CollateError as error:  # say which dataset samples they were
            samples = " and ".join(f"dataset[{int(batch[e])}]" for e in error.entries)
            raise CollateError(f"DataLoader: {error} ({samples})", error.entries) from None


from minitorch.data.distributed import DistributedSampler  # noqa: E402
from minitorch.data.samplers import (  # noqa: E402
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)
