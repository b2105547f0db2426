"""Samplers and the DataLoader's lazy reading of them (issue 23), against PyTorch's rules.

The random orders differ from PyTorch's until MiniTorch's stream reproduces torch's, so
these tests compare everything but the drawn values: lengths, ranges, permutation-ness,
batch structure, errors, and that a sampler of 10**10 indices yields its first batch at once.
"""

import time

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    BatchSampler,
    DataLoader,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
)

torch = pytest.importorskip("torch")


def _dataset(lib, n=10):
    return lib.utils.data.TensorDataset(lib.arange(n), lib.arange(n) * 2)


@pytest.mark.parametrize("lib", [minitorch, torch], ids=lambda m: m.__name__)
def test_an_endless_random_sampler_yields_its_first_batch_at_once(lib):
    ds = _dataset(lib)
    loader = lib.utils.data.DataLoader(ds, batch_size=4, sampler=lib.utils.data.RandomSampler(
        ds, replacement=True, num_samples=int(1e10)))
    start = time.perf_counter()
    it = iter(loader)
    batches = [next(it) for _ in range(3)]
    assert time.perf_counter() - start < 5
    assert len(loader) == 2_500_000_000
    for x, y in batches:
        assert tuple(x.shape) == (4,) and (y == 2 * x).all() and 0 <= int(x.min()) and int(x.max()) < 10


@pytest.mark.parametrize("num_samples", [None, 7, 10, 23])
def test_random_sampler_without_replacement_is_permutations(num_samples):
    ds = _dataset(minitorch)
    mine = list(RandomSampler(ds, num_samples=num_samples))
    theirs = list(torch.utils.data.RandomSampler(_dataset(torch), num_samples=num_samples))
    assert len(mine) == len(theirs) == len(RandomSampler(ds, num_samples=num_samples))
    for start in range(0, len(mine), 10):  # every full pass is a permutation
        chunk = mine[start:start + 10]
        assert len(set(chunk)) == len(chunk) and all(0 <= i < 10 for i in chunk)
    assert all(type(i) is int for i in mine)


@pytest.mark.parametrize("kwargs,error", [
    (dict(replacement=1), TypeError), (dict(num_samples=0), ValueError), (dict(num_samples=-3), ValueError),
    (dict(num_samples=2.0), ValueError),
], ids=str)
def test_random_sampler_errors_as_torch(kwargs, error):
    with pytest.raises(error):
        torch.utils.data.RandomSampler(_dataset(torch), **kwargs)
    with pytest.raises(error):
        RandomSampler(_dataset(minitorch), **kwargs)


def test_sequential_subset_and_batch_samplers_match_torch():
    ds = _dataset(minitorch)
    assert list(SequentialSampler(ds)) == list(torch.utils.data.SequentialSampler(_dataset(torch)))
    for drop_last in (False, True):
        mine = list(BatchSampler(SequentialSampler(ds), 3, drop_last))
        theirs = list(torch.utils.data.BatchSampler(range(10), 3, drop_last))
        assert mine == theirs and len(BatchSampler(range(10), 3, drop_last)) == len(theirs)
    subset = list(SubsetRandomSampler([5, 1, 8]))
    assert sorted(subset) == [1, 5, 8]
    with pytest.raises(ValueError):
        torch.utils.data.BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError):
        BatchSampler(range(3), 0, False)


def test_dataloader_reads_a_sampler_lazily():
    taken = []

    class Counting:
        def __iter__(self):
            for i in range(10**12):
                taken.append(i)
                yield i % 10

        def __len__(self):
            return 10**12

    loader = DataLoader(TensorDataset(minitorch.arange(10)), batch_size=5, sampler=Counting())
    (first,) = next(iter(loader))
    assert first.tolist() == [0, 1, 2, 3, 4] and len(taken) <= 6


def test_dataloader_drop_last_and_last_batch_with_a_sampler():
    ds = _dataset(minitorch)
    for drop_last in (False, True):
        mine = [x.tolist() for x, _ in DataLoader(ds, batch_size=4, sampler=SequentialSampler(ds), drop_last=drop_last)]
        theirs = [x.tolist() for x, _ in torch.utils.data.DataLoader(
            _dataset(torch), batch_size=4, sampler=torch.utils.data.SequentialSampler(range(10)), drop_last=drop_last)]
        assert mine == theirs


def test_dataloader_shuffle_with_a_generator_argument_is_a_permutation_per_epoch():
    loader = DataLoader(_dataset(minitorch), batch_size=3, shuffle=True)
    for _ in range(2):
        seen = [i for x, _ in loader for i in x.tolist()]
        assert sorted(seen) == list(range(10))


def test_random_sampler_draws_pytorchs_indices_after_the_same_seed():
    torch = pytest.importorskip("torch")
    for kwargs in (dict(), dict(replacement=True, num_samples=70), dict(num_samples=25)):
        torch.manual_seed(3)
        minitorch.manual_seed(3)
        theirs = list(torch.utils.data.RandomSampler(range(10), **kwargs))
        mine = list(minitorch.data.RandomSampler(range(10), **kwargs))
        assert mine == theirs, kwargs
        # ... and both global streams are left at the same place
        assert minitorch.rand(3).tolist() == torch.rand(3).tolist()


def test_endless_sampler_loader_gives_pytorchs_first_batches():
    torch = pytest.importorskip("torch")
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    torch.manual_seed(0)
    minitorch.manual_seed(0)
    t_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.tensor(x)), batch_size=8,
        sampler=torch.utils.data.RandomSampler(range(20), replacement=True, num_samples=10**10))
    m_loader = minitorch.data.DataLoader(
        minitorch.data.TensorDataset(minitorch.tensor(x)), batch_size=8,
        sampler=minitorch.data.RandomSampler(range(20), replacement=True, num_samples=10**10))
    for (t_batch,), (m_batch,), _ in zip(t_loader, m_loader, range(3)):
        assert m_batch.tolist() == t_batch.tolist()
