"""The Tensor methods that select, order and rearrange: sort, topk, cumsum, gather, flip,
repeat... and the ``new_*`` constructors that copy a tensor's dtype and device

``Tensor`` (``tensor.py``) inherits these methods, as it does ``TensorMethods``
(``tensor_methods.py``, the core ops): each is one line that hands the work to an op in
``minitorch/functions/selection.py`` or ``ordering.py``. The ops import ``Tensor``, so
they are bound by ``_link_ops()``, which ``tensor.py`` calls once ``Tensor`` exists.
"""

from __future__ import annotations

import builtins  # ``bool`` and ``float`` name dtypes here: annotations say ``builtins.bool``
from typing import TYPE_CHECKING, Any

_ops: Any = None  # the minitorch.functions package, bound by _link_ops()
_factories: Any = None  # minitorch.factories (zeros, ones, ...), for the new_* methods

if TYPE_CHECKING:  # for the annotations only
    from minitorch.functions.reductions import Dims
    from minitorch.tensor import Tensor
else:
    Tensor = None  # bound by _link_ops() too


class SelectionMethods:
    """Methods of the selection, ordering and shape ops (a mixin: it holds no state of its own)."""

    __slots__ = ()

    if TYPE_CHECKING:  # the Tensor state these methods read; tensor.py defines it
        data: Any  # the backend array (NumPy or CuPy)

        @property
        def dtype(self) -> Any: ...
        @property
        def device(self) -> Any: ...

    def sort(self, dim: int = -1, descending: builtins.bool = False, stable: builtins.bool = False) -> Any:
        """(values, indices) sorted along ``dim``."""
        return _ops.sort(self, dim, descending, stable)

    def argsort(self, dim: int = -1, descending: builtins.bool = False, stable: builtins.bool = False) -> Tensor:
        """The indices that sort along ``dim``."""
        return _ops.argsort(self, dim, descending, stable)

    def topk(self, k: int, dim: int = -1, largest: builtins.bool = True, sorted: builtins.bool = True) -> Any:
        """(values, indices) of the ``k`` largest (or smallest) along ``dim``."""
        return _ops.topk(self, k, dim, largest, sorted)

    def cumsum(self, dim: int, dtype: Any = None) -> Tensor:
        """Running sum along ``dim``."""
        return _ops.cumsum(self, dim, dtype)

    def cumprod(self, dim: int, dtype: Any = None) -> Tensor:
        """Running product along ``dim``."""
        return _ops.cumprod(self, dim, dtype)

    def prod(self, dim: int | None = None, keepdim: builtins.bool = False, dtype: Any = None) -> Tensor:
        """Product of all elements or along ``dim``."""
        return _ops.prod(self, dim, keepdim, dtype)

    def norm(self, p: Any = "fro", dim: Dims = None, keepdim: builtins.bool = False, dtype: Any = None) -> Tensor:
        """The vector norm (2 by default) over ``dim``."""
        return _ops.norm(self, p, dim, keepdim, dtype)

    def gather(self, dim: int, index: Tensor) -> Tensor:
        """Values picked along ``dim`` at ``index``."""
        return _ops.gather(self, dim, index)

    def index_select(self, dim: int, index: Tensor) -> Tensor:
        """The slices along ``dim`` at the positions of the 1-D ``index``."""
        return _ops.index_select(self, dim, index)

    def scatter(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None) -> Tensor:
        """A copy with ``src`` (a tensor or a number) written at ``index`` along ``dim``."""
        return _ops.scatter(self, dim, index, src, value=value)

    def masked_select(self, mask: Tensor) -> Tensor:
        """The elements where ``mask`` is True, as a 1-D tensor."""
        return _ops.masked_select(self, mask)

    def nonzero(self, *, as_tuple: builtins.bool = False) -> Any:
        """Indices of the non-zero elements."""
        return _ops.nonzero(self, as_tuple=as_tuple)

    def count_nonzero(self, dim: Dims = None) -> Tensor:
        """How many elements are not zero (over ``dim``)."""
        return _ops.count_nonzero(self, dim)

    def unique(
        self,
        sorted: builtins.bool = True,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: int | None = None,
    ) -> Any:
        """The distinct values (and optionally inverse indices and counts)."""
        return _ops.unique(self, sorted, return_inverse, return_counts, dim)

    def flip(self, *dims: Any, **kwargs: Any) -> Tensor:
        """Reversed along ``dims`` (a copy)."""
        return _ops.flip(self, *dims, **kwargs)

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        """Shifted cyclically along ``dims``."""
        return _ops.roll(self, shifts, dims)

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        """``length`` elements along ``dim`` from ``start`` (a view)."""
        return _ops.narrow(self, dim, start, length)

    def select(self, dim: int, index: int) -> Tensor:
        """The slice at ``index`` along ``dim``, that dim removed (a view)."""
        return _ops.select(self, dim, index)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """Every slice along ``dim``, as a tuple."""
        return _ops.unbind(self, dim)

    def movedim(self, source: Any, destination: Any) -> Tensor:
        """Dimension(s) ``source`` moved to ``destination``."""
        return _ops.movedim(self, source, destination)

    moveaxis = movedim

    def repeat(self, *sizes: Any) -> Tensor:
        """Copied ``sizes[d]`` times along each dim."""
        return _ops.repeat(self, *sizes)

    def tile(self, *dims: Any, **kwargs: Any) -> Tensor:
        """``repeat``, with missing leading ``dims`` taken as 1."""
        if kwargs:  # x.tile(dims=(2, 1))
            return _ops.tile(self, **kwargs)
        return _ops.tile(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)

    def repeat_interleave(self, repeats: Any, dim: int | None = None, *, output_size: int | None = None) -> Tensor:
        """Each element (or slice along ``dim``) repeated in a row."""
        return _ops.repeat_interleave(self, repeats, dim, output_size=output_size)

    def diag(self, diagonal: int = 0) -> Tensor:
        """1-D: the diagonal matrix; 2-D: the diagonal."""
        return _ops.diag(self, diagonal)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        """The diagonal ``offset`` of the matrices in ``dim1`` and ``dim2``, as the last dim."""
        return _ops.diagonal(self, offset, dim1, dim2)

    def trace(self) -> Tensor:
        """The sum of a matrix's main diagonal."""
        return _ops.trace(self)

    def outer(self, vec2: Tensor) -> Tensor:
        """Outer product with the 1-D ``vec2``."""
        return _ops.outer(self, vec2)

    def dot(self, other: Tensor) -> Tensor:
        """Dot product of two 1-D tensors."""
        return _ops.dot(self, other)

    def broadcast_to(self, size: Any) -> Tensor:
        """A view at the broadcast shape ``size``."""
        return _ops.broadcast_to(self, size)

    def new_tensor(
        self, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """A new tensor from ``data``, with this tensor's dtype and device unless given."""
        return _factories.tensor(data, dtype or self.dtype, device or self.device, requires_grad)

    def new_zeros(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Zeros of ``size``, with this tensor's dtype and device unless given."""
        return _factories.zeros(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_ones(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Ones of ``size``, with this tensor's dtype and device unless given."""
        return _factories.ones(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_empty(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """An uninitialised tensor of ``size``, with this tensor's dtype and device unless given."""
        return _factories.empty(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_full(
        self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """``fill_value`` everywhere in ``size``, with this tensor's dtype and device unless given."""
        return _factories.full(
            size, fill_value, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def nelement(self) -> int:
        """Total number of elements (``numel``)."""
        return int(self.data.size)

    def element_size(self) -> int:
        """Bytes per element."""
        return int(self.data.itemsize)

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return int(self.data.itemsize)

    @property
    def nbytes(self) -> int:
        """Bytes of all the elements."""
        return int(self.data.size * self.data.itemsize)


def _link_ops() -> None:
    """Import what the methods above call; run by ``tensor.py`` right after ``Tensor`` exists."""
    global _ops, Tensor, _factories
    from minitorch import factories as _factories
    from minitorch import functions as _ops
    from minitorch.tensor import Tensor
