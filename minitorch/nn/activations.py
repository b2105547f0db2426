"""Activation layers beyond ReLU, Sigmoid and Tanh, each calling one function of ``F``.

Constructor arguments, attributes and reprs are PyTorch's (``LeakyReLU(negative_slope=0.01)``),
numbers kept as given (``ELU(2)`` prints ``alpha=2``, as PyTorch prints it). ``inplace=True``
is accepted for PyTorch's signature and printed, but the result is always a new tensor, as
with MiniTorch's ``nn.ReLU``.
"""

from __future__ import annotations

from minitorch.nn import functional as F
from minitorch.nn.module import Module
from minitorch.tensor import Tensor


def _inplace(inplace: bool, first: bool = False) -> str:
    """PyTorch's repr of ``inplace``: shown only when True."""
    if not inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class LeakyReLU(Module):
    """x for x > 0, else ``negative_slope * x``."""

    _tensor_input = True

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace(self.inplace)}"


class ELU(Module):
    """x for x > 0, else ``alpha * (exp(x) - 1)``."""

    _tensor_input = True

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace(self.inplace)}"


class SiLU(Module):
    """x * sigmoid(x)."""

    _tensor_input = True

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input)

    def extra_repr(self) -> str:
        return _inplace(self.inplace, first=True)


class Mish(SiLU):
    """x * tanh(softplus(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""

    _tensor_input = True

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """x clamped to [min_val, max_val]."""

    _tensor_input = True

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if not max_val > min_val:  # PyTorch asserts this (F.hardtanh allows equal bounds)
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace(self.inplace)}"


class ReLU6(Hardtanh):
    """min(max(x, 0), 6): a Hardtanh(0.0, 6.0), as in PyTorch."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace(self.inplace, first=True)


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    _tensor_input = True

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softmin(Module):
    """softmax(-x, dim)."""

    _tensor_input = True

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Threshold(Module):
    """``value`` where x <= ``threshold``, else x."""

    _tensor_input = True

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace(self.inplace)}"
