"""data (Dataset, TensorDataset, DataLoader) and datasets (digits, toy 2-D sets)."""

import numpy as np
import pytest

import minitorch
from minitorch.data import DataLoader, Dataset, TensorDataset
from minitorch.datasets import load_digits, make_moons, make_spiral, make_xor
from minitorch.errors import MiniTorchError


def _dataset(n=10):
    X = minitorch.arange(n * 2).reshape(n, 2).float()
    y = minitorch.arange(n)
    return TensorDataset(X, y)


def test_tensor_dataset_indexing_and_length():
    ds = _dataset()
    assert len(ds) == 10
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 3
    with pytest.raises(MiniTorchError, match="first dimension"):
        TensorDataset(minitorch.zeros(3, 2), minitorch.zeros(4))


@pytest.mark.parametrize("drop_last,sizes", [(False, [4, 4, 2]), (True, [4, 4])])
def test_batches_in_order(drop_last, sizes):
    loader = DataLoader(_dataset(), batch_size=4, drop_last=drop_last)
    batches = list(loader)
    assert [len(y) for _, y in batches] == sizes and len(loader) == len(sizes)
    assert batches[0][1].tolist() == [0, 1, 2, 3]
    assert batches[0][0].shape == (4, 2) and batches[0][0].dtype == minitorch.float32


def test_shuffle_with_seed_is_repeatable_and_reshuffles_each_epoch():
    a = DataLoader(_dataset(50), batch_size=50, shuffle=True, seed=7)
    b = DataLoader(_dataset(50), batch_size=50, shuffle=True, seed=7)
    first_a, second_a = [list(a)[0][1].tolist() for _ in range(2)]
    first_b, second_b = [list(b)[0][1].tolist() for _ in range(2)]
    assert first_a == first_b and second_a == second_b
    assert first_a != second_a
    assert sorted(first_a) == list(range(50))
    # rows stay paired with their labels
    x, y = next(iter(a))
    np.testing.assert_array_equal(x.data[:, 0], 2 * y.data)


def test_generic_dataset_is_collated():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return minitorch.tensor([float(i)]), i * i

    batches = list(DataLoader(Squares(), batch_size=2))
    assert batches[0][0].shape == (2, 1)
    assert batches[-1][1].tolist() == [16]


def test_load_digits_split_is_stratified_scaled_and_fixed():
    split = load_digits()
    assert split.X_train.shape == (1438, 64) and split.X_test.shape == (359, 64)
    assert split.X_train.dtype == minitorch.float32 and split.y_train.dtype == minitorch.int64
    np.testing.assert_allclose(split.X_train.data.mean(axis=0), 0, atol=1e-5)
    std = split.X_train.data.std(axis=0)
    assert np.all((np.abs(std - 1) < 1e-4) | (std == 0))
    unit = load_digits(scale="unit")
    assert unit.X_train.data.min() == 0.0 and unit.X_train.data.max() == 1.0
    np.testing.assert_array_equal(unit.y_train.data, split.y_train.data)
    train_counts = np.bincount(split.y_train.data) / len(split.y_train)
    test_counts = np.bincount(split.y_test.data) / len(split.y_test)
    np.testing.assert_allclose(train_counts, test_counts, atol=0.01)
    again = load_digits()
    np.testing.assert_array_equal(again.y_test.data, split.y_test.data)
    assert load_digits(images=True).X_train.shape == (1438, 1, 8, 8)


@pytest.mark.parametrize("maker,classes", [(make_spiral, 3), (make_moons, 2), (make_xor, 2)])
def test_toy_sets(maker, classes):
    X, y = maker(seed=1)
    assert X.ndim == 2 and X.shape[1] == 2 and X.shape[0] == y.shape[0]
    assert X.dtype == minitorch.float32 and y.dtype == minitorch.int64
    assert sorted(set(y.tolist())) == list(range(classes))
    X2, _ = maker(seed=1)
    np.testing.assert_array_equal(X.data, X2.data)


@pytest.mark.parametrize("replacement, num_samples", [(False, None), (False, 25), (True, 70)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batches_cut_from_index_arrays_are_those_of_the_sampler_read_one_index_at_a_time(
    replacement, num_samples, drop_last
):
    from minitorch.data.samplers import RandomSampler

    class OneAtATime(RandomSampler):  # a subclass: the DataLoader reads it through __iter__
        pass

    runs = []
    for kind in (RandomSampler, OneAtATime):
        minitorch.manual_seed(3)
        ds = _dataset(12)
        sampler = kind(ds, replacement=replacement, num_samples=num_samples)
        loader = DataLoader(ds, batch_size=4, sampler=sampler, drop_last=drop_last)
        batches, draws = [], []
        for _ in range(2):
            for _, y in loader:
                batches.append(y.tolist())
                draws.append(minitorch.rand(1).item())  # the global stream between batches moves alike
        runs.append((batches, draws))
    assert runs[0] == runs[1]
