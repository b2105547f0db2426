"""The ``out=`` keyword of ``add``, ``mul``, ``matmul`` (and friends): write a result into a
given tensor, as PyTorch's beginner code does (``torch.add(a, b, out=c)``).

As in PyTorch, ``out=`` is outside autograd: it is refused while the result would need a
gradient. A result of another shape replaces ``out``'s data (PyTorch resizes ``out``);
otherwise it is copied into ``out``'s memory, so views of ``out`` see it.
"""

from __future__ import annotations

from minitorch.dtypes import dtype_of_array
from minitorch.errors import MiniTorchError
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase


def write_out(out: T, result: T, op: str) -> T:
    """Put ``result`` into ``out`` (a Tensor) and return ``out``."""
    if not isinstance(out, TensorBase):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if result.requires_grad and SWITCHES.grad_enabled:
        raise MiniTorchError(
            f"{op}(): functions with out=... arguments don't support automatic differentiation, but one "
            f"of the arguments requires grad; write y = {op}(...) instead, or use out= under no_grad()"
        )
    if dtype_of_array(result.data).category > dtype_of_array(out.data).category:
        raise MiniTorchError(
            f"{op}(): result type {result.dtype} can't be cast to the desired output type {out.dtype} (out=)"
        )
    if out.device != result.device:
        raise MiniTorchError(f"{op}(): out= is on {out.device} but the result is on {result.device}")
    if tuple(out.shape) != tuple(result.shape):
        out.data = result.data.astype(out.data.dtype)  # PyTorch resizes out to the result's shape
    else:
        out.data[...] = result.data
    out._bump_version()
    return out
