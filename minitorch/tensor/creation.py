"""Tensor methods of the constructors in ``minitorch/factories.py``: ``new_zeros``, ``new_ones`` ...

Each makes a new tensor with this tensor's dtype and device unless told otherwise.
"""

from __future__ import annotations

import builtins
from typing import Any

from minitorch import factories
from minitorch.tensor_base import T, TensorBase


class CreationMethods(TensorBase):
    """``Tensor.new_tensor``, ``new_zeros``, ``new_ones``, ``new_empty``, ``new_full``."""

    __slots__ = ()

    def new_tensor(
        self: T, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> T:
        """A new tensor from ``data``, with this tensor's dtype and device unless given."""
        return factories.tensor(data, dtype or self.dtype, device or self.device, requires_grad)

    def new_zeros(
        self: T, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> T:
        """Zeros of ``size``, with this tensor's dtype and device unless given."""
        return factories.zeros(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_ones(
        self: T, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> T:
        """Ones of ``size``, with this tensor's dtype and device unless given."""
        return factories.ones(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_empty(
        self: T, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> T:
        """An uninitialised tensor of ``size``, with this tensor's dtype and device unless given."""
        return factories.empty(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_full(
        self: T,
        size: Any,
        fill_value: Any,
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> T:
        """``fill_value`` everywhere in ``size``, with this tensor's dtype and device unless given."""
        return factories.full(
            size, fill_value, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )
