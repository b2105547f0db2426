"""``DistributedSampler``: deal a dataset's indices out to the ranks, one share each.

With N ranks, rank r takes indices r, r + N, r + 2N, ... of the (shuffled) order, so the
shares are disjoint and together cover the dataset. When the dataset does not divide by
N, the order is padded with its own first indices (a few samples are seen twice per
epoch) so that every rank gets the same number, or, with ``drop_last=True``, cut to a
multiple of N. This is PyTorch's rule, and the unshuffled order equals PyTorch's.

Every rank must draw the same permutation: it comes from ``seed + epoch``, so call
``sampler.set_epoch(e)`` at the start of each epoch to get a new order.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitorch import distributed as dist
from minitorch.random import Generator
from minitorch.random import transforms as random_transforms


class DistributedSampler:
    """Indices of this rank's share of ``dataset``; pass it to ``DataLoader(sampler=...)``."""

    def __init__(self, dataset: Any, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if not isinstance(num_replicas, int) or num_replicas < 1:
            raise ValueError(f"DistributedSampler: num_replicas must be a positive integer, got {num_replicas!r}")
        if not isinstance(rank, int) or not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last = bool(shuffle), int(seed), bool(drop_last)
        self.epoch = 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)  # drop the tail
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def set_epoch(self, epoch: int) -> None:
        """Use ``seed + epoch`` for the next shuffle (call it on every rank, every epoch)."""
        self.epoch = int(epoch)

    def global_order(self) -> np.ndarray:
        """The padded (or cut) order of all ranks together, before it is dealt out."""
        n = len(self.dataset)
        if self.shuffle:
            # PyTorch's: randperm from a generator seeded with seed + epoch, so the same order.
            indices = random_transforms.permutation(Generator().manual_seed(self.seed + self.epoch), n)
        else:
            indices = np.arange(n)
        if self.drop_last:
            return indices[: self.total_size]
        padding = self.total_size - n
        if padding:  # repeat the order's start until every rank has num_samples
            indices = np.concatenate([indices, np.resize(indices, padding)]) if n else indices
        return indices

    def __iter__(self) -> Iterator[int]:
        order = self.global_order()
        return iter(int(i) for i in order[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples
