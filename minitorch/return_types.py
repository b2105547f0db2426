"""The (values, indices) pairs that ``max(dim)``, ``min(dim)``, ``sort`` and ``topk`` return.

Named tuples, as PyTorch's ``torch.return_types``: unpack them (``values, indices =
x.max(dim=1)``) or read ``.values`` / ``.indices``. They print as PyTorch's do.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class ValuesIndices(NamedTuple):
    """A pair of tensors: the values an op picked and where they were (int64 indices)."""

    values: Any
    indices: Any

    def __repr__(self) -> str:
        op = getattr(type(self), "op", "values_indices")
        return f"minitorch.return_types.{op}(\nvalues={self.values!r},\nindices={self.indices!r})"


class MaxResult(ValuesIndices):
    """What ``max(dim)`` returns."""

    __slots__ = ()
    op = "max"


class MinResult(ValuesIndices):
    """What ``min(dim)`` returns."""

    __slots__ = ()
    op = "min"


class SortResult(ValuesIndices):
    """What ``sort`` returns."""

    __slots__ = ()
    op = "sort"


class TopKResult(ValuesIndices):
    """What ``topk`` returns."""

    __slots__ = ()
    op = "topk"
