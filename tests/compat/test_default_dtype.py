"""set_default_dtype reaches linspace and the layers' parameters, as in PyTorch (found by the examples)."""

import pytest

import minitorch


@pytest.fixture
def float64_default():
    minitorch.set_default_dtype(minitorch.float64)
    yield
    minitorch.set_default_dtype(minitorch.float32)


def test_linspace_and_layers_follow_the_default_dtype(float64_default):
    assert minitorch.linspace(0, 1, 5).dtype == minitorch.float64
    assert minitorch.nn.Linear(3, 2).weight.dtype == minitorch.float64
    assert minitorch.nn.Conv2d(1, 2, 3).bias.dtype == minitorch.float64
    assert minitorch.linspace(0, 1, 5, dtype=minitorch.float32).dtype == minitorch.float32


def test_float32_stays_the_default():
    assert minitorch.linspace(0, 1, 5).dtype == minitorch.float32
    assert minitorch.nn.Linear(3, 2).weight.dtype == minitorch.float32
