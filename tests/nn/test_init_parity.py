"""After the same seed, the same initial weights and the same batches as PyTorch.

``nn.init`` functions, the default initialisation of the layers, and the shuffling of
``DataLoader`` and ``DistributedSampler`` are compared bit for bit with PyTorch 2.13.
"""

import numpy as np
import pytest

import minitorch
from minitorch.data import DataLoader, DistributedSampler, TensorDataset

torch = pytest.importorskip("torch")
tud = pytest.importorskip("torch.utils.data")


def both(seed, fn):
    minitorch.manual_seed(seed)
    torch.manual_seed(seed)
    return fn(minitorch), fn(torch)


def assert_identical(mine, theirs, what):
    a, b = mine.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    assert np.array_equal(a, b), f"{what}: {np.count_nonzero(a != b)} of {a.size} values differ"


@pytest.mark.parametrize("shape", [(7,), (15, 1), (16, 3), (17, 4), (20, 50), (8, 3, 3, 3)])
@pytest.mark.parametrize(
    "name, init",
    [
        ("uniform_", lambda nn, w: nn.init.uniform_(w, -0.2, 0.7)),
        ("normal_", lambda nn, w: nn.init.normal_(w, 0.1, 0.02)),
        ("kaiming_uniform_", lambda nn, w: nn.init.kaiming_uniform_(w, a=5**0.5)),
        ("kaiming_uniform_ fan_out", lambda nn, w: nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")),
        ("kaiming_normal_", lambda nn, w: nn.init.kaiming_normal_(w)),
        ("xavier_uniform_", lambda nn, w: nn.init.xavier_uniform_(w, gain=1.3)),
        ("xavier_normal_", lambda nn, w: nn.init.xavier_normal_(w)),
    ],
)
def test_init_functions_match_torch(name, init, shape):
    if len(shape) < 2 and name not in ("uniform_", "normal_"):
        pytest.skip("fan in/out needs 2 dims")
    mine, theirs = both(3, lambda lib: init(lib.nn, lib.zeros(*shape)))
    assert_identical(mine, theirs, f"{name}{shape}")


@pytest.mark.parametrize(
    "name, make",
    [
        ("Linear", lambda nn: nn.Linear(20, 30)),
        ("Linear no bias", lambda nn: nn.Linear(5, 3, bias=False)),
        ("Conv2d", lambda nn: nn.Conv2d(3, 8, 3)),
        ("Embedding", lambda nn: nn.Embedding(11, 6)),
        ("LayerNorm", lambda nn: nn.LayerNorm(5)),
        ("RNN", lambda nn: nn.RNN(4, 6)),
        ("LSTM", lambda nn: nn.LSTM(4, 6, num_layers=2)),
        ("GRU", lambda nn: nn.GRU(3, 5, batch_first=True)),
        ("MultiheadAttention", lambda nn: nn.MultiheadAttention(8, 2)),
        ("Sequential MLP", lambda nn: nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))),
    ],
)
def test_layers_start_with_torchs_weights(name, make):
    mine, theirs = both(0, lambda lib: make(lib.nn))
    mine_params, torch_params = dict(mine.named_parameters()), dict(theirs.named_parameters())
    assert list(mine_params) == list(torch_params), f"{name}: parameter names differ"
    for key in torch_params:
        assert_identical(mine_params[key], torch_params[key], f"{name}.{key}")


def _epochs(loader, epochs):
    return [np.concatenate([batch[0].numpy() for batch in loader]) for _ in range(epochs)]


@pytest.mark.parametrize("batch_size, drop_last", [(4, False), (5, True), (25, False)])
@pytest.mark.parametrize("with_generator", [False, True])
def test_dataloader_shuffles_as_torch(batch_size, drop_last, with_generator):
    X = np.arange(50, dtype=np.float32).reshape(25, 2)
    minitorch.manual_seed(9)
    torch.manual_seed(9)
    kw_mine = {"generator": minitorch.Generator().manual_seed(4)} if with_generator else {}
    kw_torch = {"generator": torch.Generator().manual_seed(4)} if with_generator else {}
    mine = DataLoader(TensorDataset(minitorch.tensor(X)), batch_size, shuffle=True, drop_last=drop_last, **kw_mine)
    theirs = tud.DataLoader(tud.TensorDataset(torch.tensor(X)), batch_size, shuffle=True, drop_last=drop_last,
                            **kw_torch)
    for epoch, (a, b) in enumerate(zip(_epochs(mine, 3), _epochs(theirs, 3), strict=True)):
        assert np.array_equal(a, b), f"epoch {epoch}: the order differs"
    # Each epoch drew from the global generator what PyTorch's drew: the streams agree still.
    assert np.array_equal(minitorch.rand(3).numpy(), torch.rand(3).numpy())


def test_an_unshuffled_dataloader_draws_its_worker_seed_as_torch():
    X = np.arange(8, dtype=np.float32)
    minitorch.manual_seed(1)
    torch.manual_seed(1)
    for _ in DataLoader(TensorDataset(minitorch.tensor(X)), 4):
        pass
    for _ in tud.DataLoader(tud.TensorDataset(torch.tensor(X)), 4):
        pass
    assert np.array_equal(minitorch.rand(3).numpy(), torch.rand(3).numpy())


def test_dataloader_seed_is_a_generator_seeded_once():
    X = minitorch.arange(30)
    seeded = DataLoader(TensorDataset(X), 7, shuffle=True, seed=3)
    by_seed = [b[0].numpy() for _ in range(2) for b in seeded]
    loader = DataLoader(TensorDataset(X), 7, shuffle=True, generator=minitorch.Generator().manual_seed(3))
    by_generator = [b[0].numpy() for _ in range(2) for b in loader]
    assert all(np.array_equal(a, b) for a, b in zip(by_seed, by_generator, strict=True))
    with pytest.raises(ValueError, match="seed or generator"):
        DataLoader(TensorDataset(X), 2, shuffle=True, seed=1, generator=minitorch.Generator())


@pytest.mark.parametrize("epoch", [0, 3])
def test_distributed_sampler_order_matches_torch(epoch):
    import torch.utils.data.distributed as tdd

    data = list(range(23))
    for rank in range(3):
        mine = DistributedSampler(data, num_replicas=3, rank=rank, seed=5)
        theirs = tdd.DistributedSampler(data, num_replicas=3, rank=rank, seed=5)
        mine.set_epoch(epoch)
        theirs.set_epoch(epoch)
        assert list(mine) == list(theirs)
