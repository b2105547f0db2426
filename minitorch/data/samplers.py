"""Samplers: objects that yield the dataset indices a DataLoader loads, one at a time.

``DataLoader(ds, sampler=RandomSampler(ds, replacement=True, num_samples=10**10))`` is how
makemore- and minGPT-style training loops draw "endless" random batches. The DataLoader
takes indices from the sampler lazily, one batch at a time, so a sampler of ten billion
indices costs nothing until a batch is asked for.

Random draws go through the public factories (``minitorch.randperm``, ``minitorch.randint``),
in PyTorch's pattern and order: a permutation of ``n`` without replacement, chunks of 32
integers with it, from the sampler's ``generator`` or, without one, from a generator of its
own seeded by one draw from the global stream. So after ``manual_seed(s)`` the indices are
PyTorch's.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator, Sized
from typing import Any

import numpy as np

from minitorch import factories
from minitorch.random import Generator, default_generator
from minitorch.random import transforms as random_transforms

_CHUNK = 32  # with replacement, PyTorch draws this many indices per randint call


class Sampler:
    """Base class: define ``__iter__`` (the indices) and, if it is known, ``__len__``."""

    def __init__(self, data_source: Any = None) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1, in order (what ``shuffle=False`` loads)."""

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def index_arrays(self) -> Iterator[Any]:
        """The same indices as one int64 array (see ``RandomSampler.index_arrays``)."""
        yield np.arange(len(self.data_source))

    def __len__(self) -> int:
        return len(self.data_source)


def _draw(factory: Any, *args: Any, generator: Any = None) -> list[int]:
    """``factory(*args)`` as a list of ints, with ``generator=`` only when one was given."""
    drawn = factory(*args) if generator is None else factory(*args, generator=generator)
    return drawn.tolist()


class RandomSampler(Sampler):
    """Random indices: a new permutation per pass, or ``num_samples`` draws with replacement."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Any = None) -> None:
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if num_samples is not None and (
            isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral) or num_samples <= 0
        ):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        self.replacement, self._num_samples, self.generator = replacement, num_samples, generator

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields (the dataset's length unless given)."""
        return len(self.data_source) if self._num_samples is None else int(self._num_samples)

    def __iter__(self) -> Iterator[int]:
        for chunk in self.index_arrays():
            yield from chunk.tolist()

    def index_arrays(self) -> Iterator[Any]:
        """The indices of ``iter(self)``, drawn at the same moments, as int64 arrays (one per draw).

        A DataLoader over a TensorDataset cuts its batches from these with slices, instead
        of taking the indices one Python int at a time.
        """
        # PyTorch's algorithm, draw for draw, so that a seeded run gives PyTorch's batches.
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # a generator of its own, seeded by one draw from the global one
            generator = Generator().manual_seed(random_transforms.random_int64(default_generator()))
        if self.replacement:
            # Chunk by chunk: num_samples may be 10**10, far more than would fit in memory.
            for _ in range(self.num_samples // _CHUNK):
                yield factories.randint(0, n, (_CHUNK,), generator=generator).data
            yield factories.randint(0, n, (self.num_samples % _CHUNK,), generator=generator).data
            return
        for _ in range(self.num_samples // n):
            yield factories.randperm(n, generator=generator).data
        yield factories.randperm(n, generator=generator).data[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each pass."""

    def __init__(self, indices: Iterable[int], generator: Any = None) -> None:
        super().__init__(None)
        self.indices, self.generator = list(indices), generator

    def __iter__(self) -> Iterator[int]:
        for position in _draw(factories.randperm, len(self.indices), generator=self.generator):
            yield self.indices[position]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of ``batch_size`` (the last may be smaller)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        super().__init__(None)
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler: Iterable[int] = sampler
        self.batch_size: int = int(batch_size)
        self.drop_last: bool = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(int(index))
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]  # a sampler without __len__ raises, as in PyTorch
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
