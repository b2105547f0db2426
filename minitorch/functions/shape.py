"""Shape ops: reshape/view, transpose/permute, expand, squeeze/unsqueeze/flatten, cat,
stack, plus the copies that keep a tensor in the graph (clone, dtype cast, device move).

Views (``view``, ``transpose``, ``permute``, ``expand``) share memory with their input, as
in PyTorch; their backward only moves the gradient back into the input's layout.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchValueError, check_dim, check_int, check_sizes
from minitorch.functions.arithmetic import promote, unbroadcast
from minitorch.functions.conversion import cast
from minitorch.hints import Array, Gradients, Shape
from minitorch.size import broadcast_shape
from minitorch.tensor_base import T, TensorBase


def infer_shape(op: str, in_shape: Shape, shape: Iterable[int]) -> Shape:
    """Resolve one ``-1`` in ``shape`` and check the element count matches ``in_shape``."""
    shape = check_sizes(op, "shape", shape)
    numel = math.prod(in_shape)
    if shape.count(-1) > 1:
        raise MiniTorchError(f"{op}: only one dimension can be -1, got shape {shape}")
    if any(s < -1 for s in shape):
        raise MiniTorchError(f"{op}: invalid shape {shape}: sizes must be >= 0 (or -1 to infer one)")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or numel % known:
            raise MiniTorchError(
                f"{op}: shape {shape} is invalid for a tensor of shape {tuple(in_shape)} "
                f"({numel} elements)"
            )
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if math.prod(shape) != numel:
        raise MiniTorchError(
            f"{op}: cannot reshape a tensor of shape {tuple(in_shape)} ({numel} elements) into "
            f"shape {shape} ({math.prod(shape)} elements)"
        )
    return shape


class Reshape(Function):
    """Same elements, new shape: a view when the memory layout allows, else a copy."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, shape: Shape) -> Array:
        ctx.in_shape = a.shape
        return a.reshape(shape)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return grad.reshape(ctx.in_shape), None


class View(Function):
    """Same elements, new shape, always sharing memory (an error if that is impossible)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, shape: Shape) -> Array:
        ctx.in_shape = a.shape
        out = backends.of(a).reshape_view(a, shape)
        if out is None:
            strides = tuple(s // a.itemsize for s in a.strides)
            raise MiniTorchError(
                f"view: a tensor of shape {tuple(a.shape)} with strides {strides} is not "
                f"contiguous, so it can't be viewed as shape {tuple(shape)} without a copy; use "
                ".reshape(...) or .contiguous().view(...)"
            )
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return grad.reshape(ctx.in_shape), None


class Permute(Function):
    """Reorder dimensions (a view: only the strides change)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, dims: tuple[int, ...]) -> Array:
        ctx.dims = dims
        return a.transpose(dims)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        inverse = [0] * len(ctx.dims)
        for i, d in enumerate(ctx.dims):
            inverse[d] = i
        return grad.transpose(inverse), None


class Transpose(Function):
    """Swap two dimensions (a view: two strides swap)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, dim0: int, dim1: int) -> Array:
        ctx.dim0, ctx.dim1 = dim0, dim1
        return a.swapaxes(dim0, dim1)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return grad.swapaxes(ctx.dim0, ctx.dim1), None, None


class Expand(Function):
    """Repeat size-1 dimensions without copying (stride 0); backward sums them back."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, shape: Shape) -> Array:
        ctx.in_shape = a.shape
        return ctx.xp.broadcast_to(a, shape)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return unbroadcast(grad, ctx.in_shape), None


class Cat(Function):
    """Join tensors along an existing dimension; backward slices the gradient apart."""

    @staticmethod
    def forward(ctx: BackwardNode, axis: int, *arrays: Array) -> Array:
        # PyTorch's legacy rule: 1-D empty tensors (shape (0,)) are skipped (``cat`` checked
        # the rest); they get an empty gradient.
        kept = [a for a in arrays if a.shape != (0,)]
        if not kept:
            return ctx.xp.concatenate(arrays)
        ctx.axis = axis
        ctx.sizes = [None if a.shape == (0,) else a.shape[axis] for a in arrays]
        return ctx.xp.concatenate(kept, axis=axis)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        if not hasattr(ctx, "sizes"):  # every input was (0,): so is the gradient
            return (None, *[grad[:0] for _ in ctx.needs_input_grad[1:]])
        splits, start = [], 0
        for size in ctx.sizes:
            if size is None:
                splits.append(grad.reshape(-1)[:0])
                continue
            index = [slice(None)] * grad.ndim
            index[ctx.axis] = slice(start, start + size)
            splits.append(grad[tuple(index)])
            start += size
        return (None, *splits)


class Stack(Function):
    """Join tensors along a new dimension; backward takes each slice back out."""

    @staticmethod
    def forward(ctx: BackwardNode, axis: int, *arrays: Array) -> Array:
        ctx.axis = axis
        return ctx.xp.stack(arrays, axis=axis)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        before = (slice(None),) * ctx.axis  # slice i along the axis: grad[:, ..., :, i]
        return (None, *(grad[before + (i,)] for i in range(grad.shape[ctx.axis])))


# ---------------------------------------------------------------------- user functions
def _shape_args(op: str, name: str, shape: tuple[Any, ...]) -> Shape:
    """Accept ``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` alike; every size must be an int.

    A float size (``x.reshape(n / 2, 2)``) is a TypeError, never truncated, and so is no size
    at all (``x.reshape()``; PyTorch too): a 0-d shape is spelled ``()``.
    """
    if not shape:
        raise TypeError(f"{op}() missing 1 required positional argument: '{name}' (use {op}(()) for no dims)")
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return check_sizes(op, name, shape[0])
    if len(shape) == 1 and isinstance(shape[0], TensorBase) and shape[0].ndim == 1:
        if shape[0].data.dtype.kind not in "iu":
            raise TypeError(f"{op}(): argument '{name}' must be a tuple of ints, not a {shape[0].dtype} tensor")
        return tuple(int(s) for s in shape[0].tolist())
    return check_sizes(op, name, shape)


def reshape(a: T, *shape: Any) -> T:
    """The same elements in a new shape (a view when possible); one size may be -1."""
    shape = infer_shape("reshape", a.shape, _shape_args("reshape", "shape", shape))
    if shape == a.shape:
        return a
    return Reshape.apply(a, shape)


def view(a: T, *shape: Any) -> T:
    """The same memory seen with a new shape; fails for non-contiguous layouts, as in PyTorch."""
    shape = infer_shape("view", a.shape, _shape_args("view", "shape", shape))
    return View.apply(a, shape)


def permute(a: T, *dims: Any) -> T:
    """Reorder the dimensions: ``x.permute(2, 0, 1)``."""
    dims = _shape_args("permute", "dims", dims)
    ndim = a.ndim
    if len(dims) != ndim:
        raise MiniTorchError(
            f"permute: got {len(dims)} dims {tuple(dims)} for a {ndim}-d tensor of shape {tuple(a.shape)}"
        )
    normalized = tuple(check_dim("permute", d, ndim) for d in dims)
    if sorted(normalized) != list(range(ndim)):
        raise MiniTorchError(f"permute: dims {tuple(dims)} are not a permutation of 0..{ndim - 1}")
    return Permute.apply(a, normalized)


def transpose(a: T, dim0: int, dim1: int) -> T:
    """Swap dimensions ``dim0`` and ``dim1`` (a view)."""
    ndim = a.ndim
    axis0, axis1 = check_dim("transpose", dim0, ndim, "dim0"), check_dim("transpose", dim1, ndim, "dim1")
    if ndim == 0:
        return a
    return Transpose.apply(a, axis0, axis1)


def expand(a: T, *sizes: Any) -> T:
    """Repeat size-1 dimensions to ``sizes`` without copying; -1 keeps a size."""
    sizes = _shape_args("expand", "size", sizes)
    if len(sizes) < a.ndim:
        raise MiniTorchError(
            f"expand: the number of sizes {len(sizes)} must be at least the tensor's number of "
            f"dimensions {a.ndim} (shape {tuple(a.shape)})"
        )
    lead = len(sizes) - a.ndim
    shape = []
    for i, size in enumerate(sizes):
        if i < lead:
            if size < 0:
                raise MiniTorchError(
                    f"expand: the expanded size {size} isn't allowed in a leading, non-existing "
                    f"dimension {i} (target {tuple(sizes)}); -1 only keeps the size of an existing dimension"
                )
            shape.append(size)
            continue
        current = a.shape[i - lead]
        if size == -1:
            size = current
        if size < 0:
            raise MiniTorchError(
                f"expand: invalid size {size} at dimension {i} (target {tuple(sizes)}): sizes must "
                "be >= 0, or -1 to keep the existing size"
            )
        if current != size and current != 1:
            raise MiniTorchError(
                f"expand: the expanded size {size} must match the existing size {current} at "
                f"non-singleton dimension {i} (tensor of shape {tuple(a.shape)}, target {tuple(sizes)})"
            )
        shape.append(size)
    return Expand.apply(a, tuple(shape))


def expand_as(a: T, other: T) -> T:
    """``a.expand(other.shape)``."""
    return expand(a, other.shape)


def unsqueeze(a: T, dim: int) -> T:
    """Insert a dimension of size 1 at ``dim``."""
    dim = check_int("unsqueeze", "dim", dim)
    if not -a.ndim - 1 <= dim <= a.ndim:
        raise IndexError(
            f"unsqueeze: dimension {dim} is out of range for a {a.ndim}-d tensor of shape "
            f"{tuple(a.shape)} (expected {-a.ndim - 1} to {a.ndim})"
        )
    axis = dim % (a.ndim + 1)
    shape = list(a.shape)
    shape.insert(axis, 1)
    return Reshape.apply(a, tuple(shape))


def squeeze(a: T, dim: int | tuple[int, ...] | None = None) -> T:
    """Remove size-1 dimensions (all of them, or ``dim`` only when its size is 1)."""
    if dim is None:
        axes = {i for i, s in enumerate(a.shape) if s == 1}
    else:
        dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
        listed = [check_dim("squeeze", d, a.ndim) for d in dims]
        if len(set(listed)) != len(listed):
            raise MiniTorchError(f"squeeze: a dim appears multiple times in the list of dims {dims}")
        axes = {i for i in listed if a.ndim and a.shape[i] == 1}
    if not axes:
        return Reshape.apply(a, a.shape) if a.requires_grad else TensorBase._make(a.data, None, False)
    shape = tuple(s for i, s in enumerate(a.shape) if i not in axes)
    return Reshape.apply(a, shape)


def flatten(a: T, start_dim: int = 0, end_dim: int = -1) -> T:
    """Merge dimensions ``start_dim..end_dim`` into one."""
    start = check_dim("flatten", start_dim, a.ndim, "start_dim")
    end = check_dim("flatten", end_dim, a.ndim, "end_dim")
    if a.ndim == 0:
        return reshape(a, 1)
    if start > end:
        raise MiniTorchError("flatten: start_dim cannot come after end_dim")
    shape = a.shape[:start] + (math.prod(a.shape[start : end + 1]),) + a.shape[end + 1 :]
    return reshape(a, shape)


def _promote_all(tensors: Sequence[T], op: str) -> list[T]:
    """The tensors of a list or tuple, promoted to one dtype (as PyTorch, a generator or a
    single Tensor is refused: ``cat(x)`` would silently join the rows of ``x``)."""
    if not isinstance(tensors, (list, tuple)):
        hint = f"; collect it first: {op}(list(...))" if isinstance(tensors, Iterator) else (
            f"; to join several, pass a list: {op}([a, b])" if isinstance(tensors, TensorBase) else ""
        )
        raise TypeError(
            f"{op}(): argument 'tensors' must be a tuple or list of Tensors, not "
            f"{type(tensors).__name__}{hint}"
        )
    tensors = list(tensors)
    if not tensors:
        if op == "cat":  # PyTorch raises ValueError here and RuntimeError for stack
            raise MiniTorchValueError("cat(): expected a non-empty list of Tensors")
        raise MiniTorchError(f"{op}: expected a non-empty list of tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, TensorBase):
            raise TypeError(f"{op}: expected a list of Tensors, but element {i} is {type(t).__name__}")
    first = tensors[0]
    for t in tensors[1:]:
        if t.data.dtype != first.data.dtype:
            first, _ = promote(first, t)
    target = first.dtype
    return [cast(t, target) for t in tensors]


def cat(tensors: Sequence[T], dim: int = 0) -> T:
    """Join tensors along dimension ``dim``; the other sizes must match."""
    tensors = _promote_all(tensors, "cat")
    # PyTorch's legacy rule: 1-D empty tensors (shape (0,)) are skipped, so a result can be
    # grown from minitorch.empty(0) by cat([acc, row]); they still take part in the dtype.
    non_empty = [t for t in tensors if t.shape != (0,)]
    if not non_empty:  # only (0,) tensors: an empty (0,) result, whatever dim says
        return Cat.apply(0, *tensors)
    all_tensors, tensors = tensors, non_empty
    ref = tensors[0]
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise MiniTorchError(
                f"cat: zero-dimensional tensor (at position {i}) cannot be concatenated; "
                "use stack to join scalars into a 1-d tensor"
            )
    axis = check_dim("cat", dim, ref.ndim)
    for i, t in enumerate(tensors):
        if t.ndim != ref.ndim:
            raise MiniTorchError(
                f"cat: tensors must have the same number of dimensions: tensor 0 has shape "
                f"{tuple(ref.shape)} ({ref.ndim}-d) but tensor {i} has shape {tuple(t.shape)} ({t.ndim}-d)"
            )
        if any(
            t.shape[d] != ref.shape[d] for d in range(ref.ndim) if d != axis
        ):
            raise MiniTorchError(
                f"cat: sizes of tensors must match except in dimension {dim}: tensor 0 has shape "
                f"{tuple(ref.shape)} but tensor {i} has shape {tuple(t.shape)}"
            )
    return Cat.apply(axis, *all_tensors)


def stack(tensors: Sequence[T], dim: int = 0) -> T:
    """Join same-shaped tensors along a new dimension ``dim``."""
    tensors = _promote_all(tensors, "stack")
    ref = tensors[0]
    for i, t in enumerate(tensors):
        if t.shape != ref.shape:
            raise MiniTorchError(
                f"stack: expects each tensor to be equal size, but got {tuple(ref.shape)} at entry 0 "
                f"and {tuple(t.shape)} at entry {i}"
            )
    axis = check_dim("stack", dim, ref.ndim + 1)
    return Stack.apply(axis, *tensors)


def broadcast_to(input: T, size: Sequence[int]) -> T:
    """``a.expand(size)``: a view of ``input`` at the broadcast shape ``size``."""
    return expand(input, size)


def broadcast_tensors(*tensors: T) -> tuple[T, ...]:
    """The tensors expanded to their common broadcast shape (views)."""
    shape = broadcast_shape(*(tuple(t.shape) for t in tensors), op="broadcast_tensors")
    return tuple(expand(t, shape) for t in tensors)
