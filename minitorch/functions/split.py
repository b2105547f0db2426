"""``chunk`` and ``split``: a tensor cut into pieces along one dimension.

Each piece is a slice ``x[..., a:b]``, so a view of ``x`` (as in PyTorch) with its own
``Index`` node: the gradient of a piece lands in its part of ``x``'s gradient. An LSTM
cuts its four gates apart this way.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitorch.errors import MiniTorchError, check_dim, check_int
from minitorch.functions.indexing import getitem
from minitorch.tensor import Tensor


def _pieces(x: Tensor, dim: int, sizes: Sequence[int]) -> tuple[Tensor, ...]:
    """Slices of ``x`` along ``dim`` with the given lengths, in order."""
    before = (slice(None),) * dim
    out, start = [], 0
    for size in sizes:
        out.append(getitem(x, before + (slice(start, start + size),)))
        start += size
    return tuple(out)


def split(x: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
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


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunks`` pieces along ``dim`` of ceil(n / chunks) elements each (fewer if n runs out), as PyTorch."""
    chunks = check_int("chunk", "chunks", chunks)
    if chunks <= 0:
        raise MiniTorchError(f"chunk: chunks must be positive, got {chunks}")
    dim = check_dim("chunk", dim, x.ndim)
    n = x.shape[dim] if x.ndim else 1
    if n == 0:  # PyTorch gives ``chunks`` empty pieces
        return _pieces(x, dim, [0] * chunks)
    return split(x, -(-n // chunks), dim)
