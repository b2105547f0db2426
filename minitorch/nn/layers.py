"""The standard layers: each holds its parameters and calls one function of ``F``.

``Linear`` and ``Conv2d`` are initialised as PyTorch initialises them, and every parameter
and buffer has PyTorch's name and shape, so a PyTorch ``state_dict`` loads as-is.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from minitorch import factories
from minitorch.dtypes import default_float
from minitorch.errors import MiniTorchError
from minitorch.functions.conv import check_unsupported, padding_for, pair
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.losses import _Loss
from minitorch.nn.module import Module, Parameter
from minitorch.tensor import Tensor


def _size(layer: str, name: str, value: Any, low: int = 0) -> int:
    """``value`` as an int >= ``low``: a TypeError for a float or a string, a MiniTorchError if too small."""
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"{layer}: {name} must be an int, got {type(value).__name__} {value!r}")
    if value < low:
        raise MiniTorchError(f"{layer}: {name} must be >= {low}, got {value}")
    return int(value)


def _pair_at_least(layer: str, name: str, value: Any, low: int) -> tuple[int, int]:
    """``pair(value)`` with both numbers >= ``low`` (a kernel or stride of 0 is an error at construction)."""
    result = pair(value, f"{layer}: {name}")
    if min(result) < low:
        raise MiniTorchError(f"{layer}: {name} must be >= {low}, got {value!r}")
    return result


def _empty(*shape: int) -> Tensor:
    """Uninitialised storage for a parameter, in the default float dtype (set_default_dtype)."""
    return Tensor._make(np.empty(shape, dtype=default_float().np_dtype), None, False)


class Identity(Module):
    """Returns its input unchanged (a placeholder layer)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()  # any arguments are ignored, as in PyTorch (handy when swapping layers)

    def forward(self, x: Tensor) -> Tensor:
        return x


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features) as in PyTorch."""

    _tensor_input = True

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        self.in_features = _size("Linear", "in_features", in_features)
        self.out_features = _size("Linear", "out_features", out_features)
        self.weight = Parameter(_empty(self.out_features, self.in_features))
        if bias:
            self.bias = Parameter(_empty(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        shape = x.data.shape  # the array's tuple: cheaper than Tensor.shape (a Size) per call
        if not shape or shape[-1] != self.in_features:
            raise MiniTorchError(
                f"Linear(in_features={self.in_features}, out_features={self.out_features}): expected an input "
                f"whose last dimension is {self.in_features}, got shape {tuple(shape)}"
                + ("" if shape else " (a 0-d tensor: give it at least one dimension)")
            )
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Conv2d(Module):
    """2-D convolution over (N, C, H, W) inputs; weight of shape (out, in, kh, kw)."""

    _tensor_input = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, int],
        stride: int | tuple[int, int] = 1,
        padding: int | tuple[int, int] | str = 0,
        dilation: int | tuple[int, int] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
    ) -> None:
        super().__init__()
        # PyTorch's argument order; dilation, groups and padding_mode at their defaults only.
        check_unsupported("Conv2d", dilation, groups)
        if padding_mode != "zeros":
            raise MiniTorchError(f"Conv2d: padding_mode={padding_mode!r}: MiniTorch supports only 'zeros'")
        self.in_channels = _size("Conv2d", "in_channels", in_channels)
        self.out_channels = _size("Conv2d", "out_channels", out_channels)
        self.kernel_size = _pair_at_least("Conv2d", "kernel_size", kernel_size, 1)
        self.stride = _pair_at_least("Conv2d", "stride", stride, 1)
        self.padding: tuple[int, int] | str
        if isinstance(padding, str):  # 'valid' or 'same', kept as given (and printed so), checked now
            padding_for("Conv2d", padding, self.stride, self.kernel_size)
            self.padding = padding
        else:
            self.padding = _pair_at_least("Conv2d", "padding", padding, 0)
        self.weight = Parameter(_empty(out_channels, in_channels, *self.kernel_size))
        if bias:
            self.bias = Parameter(_empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in * kh * kw."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init.calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding)

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.bias is None:
            text += ", bias=False"
        return text


class MaxPool2d(Module):
    """Maximum over each window; ``stride`` defaults to ``kernel_size``."""

    _tensor_input = True

    def __init__(
        self,
        kernel_size: int | tuple[int, int],
        stride: int | tuple[int, int] | None = None,
        padding: int | tuple[int, int] = 0,
        dilation: int | tuple[int, int] = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        _pair_at_least("MaxPool2d", "kernel_size", kernel_size, 1)
        _pair_at_least("MaxPool2d", "stride", kernel_size if stride is None else stride, 1)
        _pair_at_least("MaxPool2d", "padding", padding, 0)
        # PyTorch's other options, accepted (and printed) at their defaults only.
        check_unsupported("MaxPool2d", dilation)
        if return_indices or ceil_mode:
            raise MiniTorchError(
                f"MaxPool2d: return_indices={return_indices!r}, ceil_mode={ceil_mode!r}: "
                "MiniTorch supports only return_indices=False and ceil_mode=False"
            )
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.dilation, self.ceil_mode = dilation, ceil_mode

    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class ReLU(Module):
    """max(x, 0)."""

    _tensor_input = True

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace  # accepted for PyTorch's signature; the result is always a new tensor

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    _tensor_input = True

    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Tanh(Module):
    """tanh(x)."""

    _tensor_input = True

    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class Softmax(Module):
    """softmax(x, dim)."""

    _tensor_input = True

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """log_softmax(x, dim)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.dim)


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` (by default all but the batch dim)."""

    _tensor_input = True

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Dropout(Module):
    """Zero elements with probability ``p`` while training; identity in eval mode."""

    _tensor_input = True

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace  # accepted for PyTorch's signature; the result is always a new tensor
        if not isinstance(p, numbers.Real):
            raise TypeError(f"Dropout: probability p must be a number, got {type(p).__name__} {p!r}")
        if not 0 <= p <= 1:  # refuses NaN too
            raise ValueError(f"Dropout: dropout probability has to be between 0 and 1, but got {p}")
        self.p: float = float(p)

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"  # as PyTorch prints it


class _BatchNorm(Module):
    """Shared code of BatchNorm1d/2d: affine weight/bias and running statistics, as PyTorch."""

    _tensor_input = True
    # PyTorch loads state dicts saved before this buffer existed: a missing one keeps its value.
    _optional_state = ("num_batches_tracked",)

    expected_dims: tuple[int, ...] = ()
    # Registered as buffers by __init__ (as None without track_running_stats).
    running_mean: Tensor | None
    running_var: Tensor | None
    num_batches_tracked: Tensor  # read only when track_running_stats is True

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        num_features = _size(name, "num_features", num_features)
        for key, value in (("eps", eps), ("momentum", momentum)):
            if value is not None and (not isinstance(value, numbers.Real) or math.isnan(value)):
                raise ValueError(f"{name}: {key} must be a number (not NaN), got {value!r}")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(factories.ones(num_features))
            if bias:
                self.bias = Parameter(factories.zeros(num_features))
            else:  # PyTorch's bias=False: scale only
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", factories.zeros(num_features))
            self.register_buffer("running_var", factories.ones(num_features))
            self.register_buffer("num_batches_tracked", factories.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1 and the batch counter 0, as at construction."""
        if self.track_running_stats:
            assert self.running_mean is not None and self.running_var is not None
            self.running_mean.data[...] = 0
            self.running_var.data[...] = 1
            self.num_batches_tracked.data[...] = 0

    def reset_parameters(self) -> None:
        """The running statistics reset, and weight 1 and bias 0, as at construction."""
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in self.expected_dims:
            raise MiniTorchError(
                f"{type(self).__name__}: expected a {' or '.join(f'{d}-d' for d in self.expected_dims)} "
                f"input, got shape {tuple(x.shape)}"
            )
        if x.shape[1] != self.num_features:
            raise MiniTorchError(
                f"{type(self).__name__}({self.num_features}): input has {x.shape[1]} channels (shape {tuple(x.shape)})"
            )
        momentum = self.momentum
        use_batch_stats = self.training or self.running_mean is None
        if self.training and self.track_running_stats:
            self.num_batches_tracked.data += 1
            if momentum is None:  # a cumulative moving average, as PyTorch does
                momentum = 1.0 / float(self.num_batches_tracked.data)
        update = self.training and self.track_running_stats
        return F.batch_norm(
            x,
            self.running_mean if update or not use_batch_stats else None,
            self.running_var if update or not use_batch_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            0.0 if momentum is None else momentum,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs over the batch (and length)."""

    expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs over batch, height and width."""

    expected_dims = (4,)


class _ClassLoss(_Loss):
    """A loss over class indices: ``weight`` (C,) a buffer, as in PyTorch (in ``state_dict``,
    moved by ``.to()``), and ``ignore_index``."""

    weight: Tensor | None  # a buffer (set by register_buffer)

    def __init__(self, weight: Tensor | None = None, *, ignore_index: int = -100, reduction: str = "mean") -> None:
        if isinstance(weight, str):
            raise TypeError(
                f"{type(self).__name__}(): the first argument is weight, as in PyTorch; "
                f"pass the reduction by name: reduction={weight!r}"
            )
        super().__init__(reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def extra_repr(self) -> str:
        parts = []
        if self.weight is not None:
            parts.append(f"weight=<tensor of shape {tuple(self.weight.shape)}>")
        if self.ignore_index != -100:
            parts.append(f"ignore_index={self.ignore_index}")
        if self.reduction != "mean":
            parts.append(f"reduction={self.reduction!r}")
        return ", ".join(parts)


class CrossEntropyLoss(_ClassLoss):
    """Softmax cross-entropy of logits against class indices or class probabilities (see ``F.cross_entropy``)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        *,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, ignore_index=ignore_index, reduction=reduction)
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )

    def extra_repr(self) -> str:
        smoothing = f"label_smoothing={self.label_smoothing}" if self.label_smoothing else ""
        return ", ".join(p for p in (super().extra_repr(), smoothing) if p)


class NLLLoss(_ClassLoss):
    """Negative log-likelihood of log-probabilities against integer class targets (see ``F.nll_loss``)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, self.reduction)
