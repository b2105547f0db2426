"""Average-pooling layers: ``AvgPool2d`` (fixed windows) and ``AdaptiveAvgPool2d`` (a fixed output size).

Arguments are kept as given and printed as PyTorch prints them (``AvgPool2d(kernel_size=2,
stride=2, padding=0)``); they are checked at construction, so a bad kernel fails early.
"""

from __future__ import annotations

from typing import Any

from minitorch.errors import MiniTorchError
from minitorch.nn import functional as F
from minitorch.nn.layers import _pair_at_least
from minitorch.nn.module import Module
from minitorch.tensor import Tensor


class AvgPool2d(Module):
    """Mean over each window; ``stride`` defaults to ``kernel_size``, zero padding counts in the mean."""

    _tensor_input = True

    def __init__(
        self,
        kernel_size: int | tuple[int, int],
        stride: int | tuple[int, int] | None = None,
        padding: int | tuple[int, int] = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        _pair_at_least("AvgPool2d", "kernel_size", kernel_size, 1)
        _pair_at_least("AvgPool2d", "stride", kernel_size if stride is None else stride, 1)
        _pair_at_least("AvgPool2d", "padding", padding, 0)
        # PyTorch's other options, accepted at their defaults only.
        if ceil_mode or not count_include_pad or divisor_override is not None:
            raise MiniTorchError(
                f"AvgPool2d: ceil_mode={ceil_mode!r}, count_include_pad={count_include_pad!r}, "
                f"divisor_override={divisor_override!r}: MiniTorch supports only ceil_mode=False, "
                "count_include_pad=True and divisor_override=None"
            )
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average down (or up) to ``output_size`` (an int, or a pair whose None keeps that input size)."""

    _tensor_input = True

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
