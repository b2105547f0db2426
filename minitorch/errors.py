"""The error MiniTorch raises for a misuse it can explain, and helpers to format shapes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class MiniTorchError(RuntimeError):
    """A RuntimeError (as PyTorch raises) whose message already names the op and operands."""


def fmt_shape(shape: Iterable[int]) -> str:
    """``(3, 4)`` for a shape tuple, with ``()`` for a scalar."""
    return str(tuple(shape))


def check_dim(op: str, dim: int, ndim: int) -> int:
    """``dim`` made non-negative, or an IndexError naming ``op`` and the valid range."""
    low, high = -max(ndim, 1), max(ndim, 1) - 1
    if not low <= dim <= high:
        raise IndexError(f"{op}: dimension {dim} is out of range for a {ndim}-d tensor (expected {low} to {high})")
    return dim % max(ndim, 1)


def device_mismatch_message(op: str, devices: Sequence[tuple[int, str]]) -> str:
    """The error text for tensors on different devices: names the op and every device.

    ``devices`` is a list of ``(input index, device)`` for the tensor inputs.
    """
    listed = ", ".join(f"input {i} on {d}" for i, d in devices)
    found = sorted({d for _, d in devices})
    return (
        f"{op}: expected all tensors to be on the same device, but found at least two devices, "
        f"{' and '.join(found)} ({listed}). Move them first, e.g. x.to('cuda') or x.cpu()"
    )
