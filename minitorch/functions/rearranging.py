"""Rearranging ops: narrow, select, unbind, movedim, repeat, tile, repeat_interleave, diag,
outer, dot, broadcast_to / broadcast_tensors and hstack / vstack / concat.

Most are other ops in a new arrangement (``narrow`` is a slice, ``movedim`` a ``permute``,
``hstack`` a ``cat``), so their gradients come for free; only ``repeat``,
``repeat_interleave`` and ``diag`` need a backward of their own: the gradient of a copied
element is the sum of its copies' gradients.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchIndexError, check_dim, check_int, check_sizes
from minitorch.functions import reductions
from minitorch.functions.arithmetic import mul
from minitorch.functions.autocast_policy import autocast_inputs, autocast_paused
from minitorch.functions.indexing import getitem, scatter_into_zeros
from minitorch.functions.linalg import matmul
from minitorch.functions.shape import _shape_args, cat, permute, reshape
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase


def narrow(input: T, dim: int, start: int, length: int) -> T:
    """``length`` elements of ``input`` along ``dim`` from ``start`` (a view: the slice a[..., start:start+length])."""
    if input.ndim == 0:  # before the dim check: PyTorch's RuntimeError, not an IndexError
        raise MiniTorchError("narrow() cannot be applied to a 0-dim tensor")
    start, length = check_int("narrow", "start", start), check_int("narrow", "length", length)
    if length < 0:  # checked before dim, as in PyTorch
        raise MiniTorchError(f"narrow(): length must be non-negative, got {length}")
    axis = check_dim("narrow", dim, input.ndim)
    n = input.shape[axis]
    if not -n <= start <= n:
        raise MiniTorchIndexError(f"narrow: start {start} is out of range for dimension {axis} of size {n}")
    if start < 0:  # counted from the end, as a negative list index
        start += n
    if length < 0 or start + length > n:
        raise MiniTorchError(
            f"narrow: start ({start}) + length ({length}) exceeds dimension size ({n}) (shape {tuple(input.shape)})"
        )
    return getitem(input, (slice(None),) * axis + (slice(start, start + length),))


def select(input: T, dim: int, index: int) -> T:
    """The slice at ``index`` along ``dim``, that dim removed (``a[:, index]`` for dim 1; a view)."""
    if input.ndim == 0:
        raise MiniTorchIndexError("select() cannot be applied to a 0-dim tensor")
    axis = check_dim("select", dim, input.ndim)
    index = check_int("select", "index", index)
    n = input.shape[axis]
    if not -n <= index < n:
        raise MiniTorchIndexError(
            f"select(): index {index} out of range for tensor of size {tuple(input.shape)} at dimension {axis}"
        )
    return getitem(input, (slice(None),) * axis + (index % n,))


def unbind(input: T, dim: int = 0) -> tuple[T, ...]:
    """Every slice along ``dim``, that dim removed: ``tuple(a.select(dim, i) for i in range(n))``."""
    if input.ndim == 0:
        raise MiniTorchIndexError("unbind: dimension specified as 0 but tensor has no dimensions")
    axis = check_dim("unbind", dim, input.ndim)
    return tuple(select(input, axis, i) for i in range(input.shape[axis]))


def movedim(input: T, source: int | Sequence[int], destination: int | Sequence[int]) -> T:
    """Move dimension(s) ``source`` to position(s) ``destination``; the others keep their order (a permute)."""
    src = (source,) if not isinstance(source, (tuple, list)) else tuple(source)
    dst = (destination,) if not isinstance(destination, (tuple, list)) else tuple(destination)
    if len(src) != len(dst):
        raise MiniTorchError(
            f"movedim: invalid source or destination dims: source ({list(src)} dims) should contain the same "
            f"number of dims as destination ({list(dst)} dims)"
        )
    src = tuple(check_dim("movedim", d, input.ndim, "source") for d in src)
    dst = tuple(check_dim("movedim", d, input.ndim, "destination") for d in dst)
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise MiniTorchError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    if input.ndim == 0:
        return input
    rest = iter(d for d in range(input.ndim) if d not in src)  # the unmoved dims, in order
    placed = dict(zip(dst, src))
    return permute(input, tuple(placed[i] if i in placed else next(rest) for i in range(input.ndim)))


moveaxis = movedim  # NumPy's name, which PyTorch has too


# ---------------------------------------------------------------------- repeating
class Repeat(Function):
    """``a`` tiled ``sizes[d]`` times along each dim.   Backward sums the copies of each element."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, sizes: tuple[int, ...]) -> Array:
        ctx.in_shape, ctx.sizes = a.shape, sizes
        a = a.reshape((1,) * (len(sizes) - a.ndim) + a.shape)  # missing leading dims are size 1
        return ctx.xp.tile(a, sizes)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        shape = (1,) * (len(ctx.sizes) - len(ctx.in_shape)) + ctx.in_shape
        # Split each dim into (copy, element): copy k of element i sits at k * n + i.
        split = [n for pair in zip(ctx.sizes, shape) for n in pair]
        summed = grad.reshape(split).sum(axis=tuple(range(0, len(split), 2)))
        return summed.reshape(ctx.in_shape), None


def repeat(a: T, *sizes: Any) -> T:
    """``a`` copied ``sizes[d]`` times along each dim (a copy, not a view; more sizes add leading dims)."""
    sizes = _shape_args("repeat", "repeats", sizes)
    if len(sizes) < a.ndim:
        raise MiniTorchError(
            f"repeat: number of dimensions of repeat dims {sizes} can not be smaller than number of "
            f"dimensions of tensor {tuple(a.shape)}"
        )
    if any(s < 0 for s in sizes):
        raise MiniTorchError(f"repeat: repeats must be non-negative, got {sizes}")
    return Repeat.apply(a, sizes)


def tile(input: T, dims: Sequence[int]) -> T:
    """``repeat``, except that fewer ``dims`` than ``input`` has are padded with 1s at the front."""
    dims = check_sizes("tile", "dims", dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


class RepeatInterleave(Function):
    """Each slice along ``axis`` repeated (``repeats`` times, or ``repeats[i]`` times) in place."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, repeats: Any, axis: int) -> Array:
        xp = ctx.xp
        ctx.in_shape, ctx.axis = a.shape, axis
        # Where each output slice came from: [0, 0, 1, 1, ...] for repeats 2.
        ctx.source = xp.repeat(xp.arange(a.shape[axis]), repeats)
        return xp.repeat(a, repeats, axis=axis)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        where_from = (slice(None),) * ctx.axis + (ctx.source,)  # copies of one slice add up
        return scatter_into_zeros(ctx.xp, ctx.in_shape, grad.dtype, where_from, grad, accumulate=True), None, None


def repeat_interleave(
    input: T,
    repeats: int | T | None = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> T:
    """Each element (or slice along ``dim``) repeated ``repeats`` times in a row; flattened when dim is None.

    ``repeat_interleave(counts)`` with one 1-D int tensor gives each position i repeated counts[i]
    times (``[1, 2, 0]`` -> ``[0, 1, 1]``). ``output_size``, the length of the result along dim,
    is only checked here (PyTorch uses it to skip a GPU sync).
    """
    if repeats is None:  # the one-argument form: input holds the counts
        if input.ndim != 1:
            raise MiniTorchError(f"repeat_interleave only accept 1D vector as repeat, got shape {tuple(input.shape)}")
        if input.data.dtype.kind not in "iu":
            raise NotImplementedError(f"repeat_interleave: counts must be integers, got {input.dtype}")
        positions = TensorBase._make(backends.module_of(input.data).arange(input.shape[0]), None, False)
        return repeat_interleave(positions, input, 0, output_size=output_size)
    out = _repeat_interleave(input, repeats, dim)
    length = out.shape[0 if dim is None else check_dim("repeat_interleave", dim, out.ndim)]
    if output_size is not None and output_size != length:
        raise MiniTorchError(f"repeat_interleave: Invalid output_size, expected {length} but got {output_size}")
    return out


def _repeat_interleave(input: T, repeats: int | T, dim: int | None) -> T:
    if dim is None:
        input, dim = reshape(input, -1), 0
    elif input.ndim == 0:
        raise IndexError(f"repeat_interleave: dimension {dim} is out of range for a 0-d tensor (give no dim)")
    axis = check_dim("repeat_interleave", dim, input.ndim)
    if isinstance(repeats, TensorBase):
        if repeats.data.dtype.kind not in "iu" or repeats.ndim > 1:
            raise MiniTorchError(f"repeat_interleave: repeats must be an int or a 1-D int64 tensor, got {repeats!r}")
        # The output size depends on the counts, so they are read on the host (PyTorch syncs too).
        counts = reshape(repeats, -1).tolist()
        if len(counts) not in (1, input.shape[axis]):
            raise MiniTorchError(
                f"repeat_interleave: repeats must have the same size as input along dim {axis}: "
                f"{len(counts)} repeats for {input.shape[axis]} slices"
            )
        if counts and min(counts) < 0:
            raise MiniTorchError("repeat_interleave: repeats must be non-negative")
        return RepeatInterleave.apply(input, counts, axis)
    count = check_int("repeat_interleave", "repeats", repeats)
    if count < 0:
        raise MiniTorchError(f"repeat_interleave: repeats must be non-negative, got {count}")
    return RepeatInterleave.apply(input, count, axis)


# ---------------------------------------------------------------------- diag, outer, dot
def _both_tensors(op: str, input: Any, name: str, other: Any) -> None:
    """PyTorch's TypeError for a number (or anything else) where a Tensor is needed."""
    for position, (arg, value) in enumerate((("input", input), (name, other)), start=1):
        if not isinstance(value, TensorBase):
            raise TypeError(
                f"{op}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}"
            )


class Diag(Function):
    """1-D -> the 2-D matrix with it on diagonal ``k``; 2-D -> its diagonal ``k``, as 1-D.
    Each direction's backward is the other one."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, k: int) -> Array:
        ctx.in_shape, ctx.k = a.shape, k
        return ctx.xp.diag(a, k) if a.ndim == 1 else ctx.xp.diagonal(a, k).copy()

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp, k = ctx.xp, ctx.k
        if len(ctx.in_shape) == 1:
            return xp.diagonal(grad, k).copy(), None
        steps = xp.arange(grad.shape[0])
        on_diagonal = (steps + max(-k, 0), steps + max(k, 0))  # (row, col) of each diagonal element
        return scatter_into_zeros(xp, ctx.in_shape, grad.dtype, on_diagonal, grad), None


def diag(input: T, diagonal: int = 0) -> T:
    """A 1-D tensor as a diagonal matrix, or the diagonal of a 2-D one (``diagonal`` > 0: above it)."""
    if input.ndim not in (1, 2):
        raise MiniTorchError(f"diag(): supports 1D or 2D tensors, got {input.ndim}D (shape {tuple(input.shape)})")
    return Diag.apply(input, check_int("diag", "diagonal", diagonal))


class Diagonal(Function):
    """Diagonal ``k`` of the last two dims, as a new last dim (a batch of matrices -> a batch of
    diagonals). Backward puts each gradient back on the diagonal, zeros everywhere else."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, k: int) -> Array:
        ctx.in_shape, ctx.k = a.shape, k
        return ctx.xp.diagonal(a, k, axis1=-2, axis2=-1).copy()

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp, k = ctx.xp, ctx.k
        steps = xp.arange(grad.shape[-1])
        on_diagonal = (Ellipsis, steps + max(-k, 0), steps + max(k, 0))
        return scatter_into_zeros(xp, ctx.in_shape, grad.dtype, on_diagonal, grad), None


def diagonal(input: T, offset: int = 0, dim1: int = 0, dim2: int = 1) -> T:
    """The diagonal ``offset`` (> 0: above it) of the matrices in dims ``dim1`` and ``dim2``, as the last dim."""
    _both_tensors("diagonal", input, "input", input)
    offset = check_int("diagonal", "offset", offset)
    d1, d2 = check_dim("diagonal", dim1, input.ndim), check_dim("diagonal", dim2, input.ndim)
    if d1 == d2:
        raise MiniTorchError(f"diagonal: dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(movedim(input, (d1, d2), (-2, -1)), offset)


def trace(input: T) -> T:
    """The sum of a matrix's main diagonal."""
    _both_tensors("trace", input, "input", input)
    if input.ndim != 2:
        raise MiniTorchError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if SWITCHES.autocast is None:
        return reductions.sum(diagonal(input))
    (input,) = autocast_inputs("trace", input)  # float32 under CPU autocast
    with autocast_paused():  # the sum inside is part of trace, not an op of its own (float32 on CUDA)
        return reductions.sum(diagonal(input))


def outer(input: T, vec2: T) -> T:
    """out[i][j] = a[i] * b[j] for 1-D ``input`` and ``vec2`` (the usual dtype promotion)."""
    _both_tensors("outer", input, "vec2", vec2)
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise MiniTorchError(f"outer: expected 1-D argument {name}, but got {t.ndim}-D (shape {tuple(t.shape)})")
    return mul(reshape(input, -1, 1), reshape(vec2, 1, -1))


def dot(input: T, tensor: T) -> T:
    """The sum of a[i] * b[i] for two 1-D tensors of one size and one dtype (a 0-d result)."""
    _both_tensors("dot", input, "tensor", tensor)
    if input.ndim != 1 or tensor.ndim != 1:
        raise MiniTorchError(f"dot: 1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    if input.data.dtype.kind == "b" or tensor.data.dtype.kind == "b":
        raise NotImplementedError("dot: not implemented for bool tensors (as PyTorch); convert first, e.g. .long()")
    if input.data.dtype != tensor.data.dtype:
        raise MiniTorchError(
            f"dot: expected both vectors to have same dtype, but found {input.dtype} and {tensor.dtype}"
        )
    if input.shape != tensor.shape:
        raise MiniTorchError(
            f"dot: inconsistent tensor size, expected tensors of the same number of elements, got {input.shape[0]} "
            f"and {tensor.shape[0]}"
        )
    return matmul(input, tensor)


# ---------------------------------------------------------------------- broadcasting and joining
def concat(tensors: Sequence[T], dim: int = 0) -> T:
    """Another name for ``cat``."""
    return cat(tensors, dim)


concatenate = concat


def hstack(tensors: Sequence[T]) -> T:
    """Join along dim 1 (dim 0 for 1-D tensors): side by side."""
    tensors = [reshape(t, 1) if t.ndim == 0 else t for t in _tensor_list("hstack", tensors)]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Sequence[T]) -> T:
    """Join along dim 0, 1-D tensors becoming rows: one on top of the other."""
    tensors = [reshape(t, 1, -1) if t.ndim < 2 else t for t in _tensor_list("vstack", tensors)]
    return cat(tensors, 0)


def _tensor_list(op: str, tensors: Sequence[T]) -> list[T]:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' must be a tuple or list of Tensors, not {type(tensors).__name__}")
    if not tensors:  # PyTorch's RuntimeError
        raise MiniTorchError(f"{op} expects a non-empty TensorList")
    return list(tensors)


# ---------------------------------------------------------------------- chunk and split (views along a dimension)
def _pieces(x: T, dim: int, sizes: Sequence[int]) -> tuple[T, ...]:
    """Slices of ``x`` along ``dim`` with the given lengths, in order."""
    before = (slice(None),) * dim
    out, start = [], 0
    for size in sizes:
        out.append(getitem(x, before + (slice(start, start + size),)))
        start += size
    return tuple(out)


def split(x: T, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[T, ...]:
    """Pieces of ``split_size`` along ``dim`` (the last one may be shorter), or of the listed sizes."""
    dim = check_dim("split", dim, x.ndim)
    n = x.shape[dim] if x.ndim else 1
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [check_int("split", "split_size_or_sections", s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes) or sum(sizes) != n:
            raise MiniTorchError(
                f"split: the sizes {list(sizes)} must be >= 0 and sum to the size of dimension {dim}, {n}"
            )
        return _pieces(x, dim, sizes)
    size = check_int("split", "split_size", split_size_or_sections)
    if size <= 0:
        if size == 0 and n == 0:
            return (x,)
        raise MiniTorchError(f"split: split_size must be positive, got {size}")
    count = max(1, -(-n // size))
    return _pieces(x, dim, [min(size, n - i * size) for i in range(count)])


def chunk(x: T, chunks: int, dim: int = 0) -> tuple[T, ...]:
    """``chunks`` pieces along ``dim`` of ceil(n / chunks) elements each (fewer if n runs out), as PyTorch."""
    chunks = check_int("chunk", "chunks", chunks)
    if chunks <= 0:
        raise MiniTorchError(f"chunk: chunks must be positive, got {chunks}")
    dim = check_dim("chunk", dim, x.ndim)
    n = x.shape[dim] if x.ndim else 1
    if n == 0:  # PyTorch gives ``chunks`` empty pieces
        return _pieces(x, dim, [0] * chunks)
    return split(x, -(-n // chunks), dim)
