"""``minitorch.Generator`` and the global generator's state, against ``torch.Generator``.

A Generator has its own stream: drawing from it leaves the global one untouched, and its
``get_state()`` bytes are PyTorch's, so a state moves between the two libraries.
"""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError

torch = pytest.importorskip("torch")


def values(t):
    return t.detach().numpy()


def test_manual_seed_returns_the_default_generator_and_initial_seed_reports_it():
    g = minitorch.manual_seed(123)
    assert g is minitorch.default_generator
    assert isinstance(g, minitorch.Generator)
    assert minitorch.initial_seed() == 123 == g.initial_seed()


@pytest.mark.parametrize(
    "draw",
    [
        lambda lib, g: lib.rand(5, generator=g),
        lambda lib, g: lib.randn(20, generator=g, dtype=lib.float64),
        lambda lib, g: lib.randint(0, 9, (7,), generator=g),
        lambda lib, g: lib.randperm(12, generator=g),
        lambda lib, g: lib.zeros(17).normal_(1.0, 2.0, generator=g),
        lambda lib, g: lib.zeros(6).uniform_(-2, 2, generator=g),
        lambda lib, g: lib.zeros(6).bernoulli_(0.4, generator=g),
        lambda lib, g: lib.bernoulli(lib.full((9,), 0.5), generator=g),
        lambda lib, g: lib.multinomial(lib.tensor([0.2, 0.3, 0.5]), 6, True, generator=g),
        lambda lib, g: lib.rand_like(lib.zeros(3), generator=g),
        lambda lib, g: lib.randn_like(lib.zeros(3), generator=g),
        lambda lib, g: lib.randint_like(lib.zeros(3), 0, 4, generator=g),
    ],
)
def test_generator_argument_draws_torchs_numbers_and_spares_the_global_stream(draw):
    minitorch.manual_seed(1)
    torch.manual_seed(1)
    mine = draw(minitorch, minitorch.Generator().manual_seed(42))
    theirs = draw(torch, torch.Generator().manual_seed(42))
    assert np.array_equal(values(mine), values(theirs))
    # The global generators were not touched: the next global draws still agree with seed 1.
    assert np.array_equal(values(minitorch.rand(4)), values(torch.rand(4)))


def test_two_generators_with_one_seed_give_one_stream():
    a, b = minitorch.Generator().manual_seed(7), minitorch.Generator().manual_seed(7)
    assert np.array_equal(values(minitorch.randn(30, generator=a)), values(minitorch.randn(30, generator=b)))


def test_get_state_bytes_are_torchs_and_restore_the_stream():
    for lib in (minitorch, torch):
        lib.manual_seed(77)
        lib.randn(3)  # leaves a cached normal in the state
        lib.rand(700)  # crosses a twist of the 624-word state
    mine, theirs = minitorch.get_rng_state(), torch.get_rng_state()
    assert tuple(mine.shape) == (5056,)
    assert np.array_equal(values(mine), theirs.numpy())
    after = values(minitorch.randn(5))
    minitorch.set_rng_state(mine)
    assert np.array_equal(values(minitorch.randn(5)), after)


def test_a_torch_state_restores_into_minitorch_and_back():
    torch.manual_seed(5)
    torch.rand(10)
    minitorch.set_rng_state(torch.get_rng_state())
    assert np.array_equal(values(minitorch.rand(8)), torch.rand(8).numpy())
    g = minitorch.Generator().manual_seed(3)
    minitorch.randn(1, generator=g)
    tg = torch.Generator().set_state(torch.tensor(values(g.get_state()), dtype=torch.uint8))
    assert np.array_equal(values(minitorch.randn(1, generator=g)), torch.randn(1, generator=tg).numpy())


def test_seed_draws_a_fresh_seed_and_reports_it():
    g = minitorch.Generator()
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2**64
    first = values(minitorch.rand(3, generator=g))
    g.manual_seed(s)
    assert np.array_equal(values(minitorch.rand(3, generator=g)), first)
    assert minitorch.seed() == minitorch.initial_seed()


def test_generator_errors_name_the_problem():
    with pytest.raises(TypeError, match="generator"):
        minitorch.rand(2, generator=np.random.default_rng(0))
    with pytest.raises(MiniTorchError, match="CPU"):
        minitorch.Generator(device="cuda")
    with pytest.raises(ValueError, match="64 bits"):  # torch: ValueError (overflow)
        minitorch.manual_seed(2**64)
    with pytest.raises(ValueError, match="integer"):  # torch.manual_seed takes int(seed): "0" is 0
        minitorch.manual_seed("zero")
    with pytest.raises(MiniTorchError, match="size"):
        minitorch.set_rng_state(minitorch.zeros(10, dtype=minitorch.int64))
    bad = values(minitorch.get_rng_state()).copy()
    bad[8:12] = 0  # "left" = 0 is no mt19937 state
    with pytest.raises(MiniTorchError, match="Invalid mt19937 state"):
        minitorch.set_rng_state(minitorch.tensor(bad))


@pytest.mark.parametrize("seed", ["0", 1.0, True])
def test_generator_manual_seed_takes_only_ints_as_torch(seed):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.Generator().manual_seed(seed)
    with pytest.raises(RuntimeError, match="expected an int seed"):
        minitorch.Generator().manual_seed(seed)
