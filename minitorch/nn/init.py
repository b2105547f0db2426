"""Weight initialisation, as ``torch.nn.init``: fill a tensor in place from a distribution.

PyTorch's default for ``Linear`` and ``Conv2d`` is ``kaiming_uniform_(w, a=sqrt(5))``,
which works out to U(-1/sqrt(fan_in), 1/sqrt(fan_in)); their bias uses the same bound.
Random numbers come from ``minitorch.factories.default_generator()``, so
``minitorch.manual_seed`` makes a model's initial weights repeatable.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from minitorch import backends
from minitorch.autograd.grad_mode import no_grad
from minitorch.random import default_generator
from minitorch.tensor import Tensor


def _fill(tensor: Tensor, array: np.ndarray) -> Tensor:
    """Write a NumPy array into ``tensor`` in place, on its device and dtype."""
    with no_grad():
        tensor.data[...] = backends.to_device(array.astype(tensor.data.dtype), tensor.device)
    tensor._bump_version()
    return tensor


def calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out): inputs and outputs feeding one weight, counting the kernel area."""
    if tensor.ndim < 2:
        raise ValueError(f"fan in/out needs a weight with at least 2 dims, got shape {tuple(tensor.shape)}")
    receptive = 1
    for size in tensor.shape[2:]:
        receptive *= size
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The scale that keeps activations' variance steady through ``nonlinearity``."""
    if nonlinearity in ("linear", "sigmoid", "conv2d", "conv1d"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    """Fill with U(a, b)."""
    return _fill(tensor, default_generator().uniform(a, b, size=tensor.shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill with N(mean, std**2)."""
    return _fill(tensor, default_generator().normal(mean, std, size=tensor.shape))


def constant_(tensor: Tensor, value: float) -> Tensor:
    """Fill with ``value``."""
    with no_grad():
        tensor.data[...] = value
    tensor._bump_version()
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0."""
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1."""
    return constant_(tensor, 1.0)


def kaiming_uniform_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    """He initialisation: U(-bound, bound) with bound = gain * sqrt(3 / fan)."""
    if 0 in tuple(tensor.shape):  # as PyTorch: nothing to fill (and fan_in may be 0)
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(tensor, -bound, bound)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """Glorot initialisation: U(-bound, bound) with bound = gain * sqrt(6 / (fan_in + fan_out))."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)
