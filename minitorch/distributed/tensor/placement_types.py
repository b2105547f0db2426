"""How a DTensor is laid out over the ranks of a mesh: ``Shard(dim)`` or ``Replicate()``.

``Shard(0)`` on 2 ranks: rank 0 holds the first half of dimension 0, rank 1 the second
half (equal slices, in rank order). ``Replicate()``: every rank holds the whole tensor.
Placements compare with ``==`` and hash, as PyTorch's do.
"""

from __future__ import annotations

from typing import Any


class Placement:
    """The base of ``Shard`` and ``Replicate``."""

    def is_shard(self, dim: int | None = None) -> bool:
        """True for a ``Shard`` (of dimension ``dim``, when given)."""
        return False

    def is_replicate(self) -> bool:
        """True for ``Replicate()``."""
        return False


class Shard(Placement):
    """Split dimension ``dim`` into equal slices, the r-th on rank r."""

    def __init__(self, dim: int) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"Shard(dim): dim must be an int, got {dim!r}")
        self.dim = dim

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or dim == self.dim

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Shard) and other.dim == self.dim

    def __hash__(self) -> int:
        return hash(("Shard", self.dim))

    def __repr__(self) -> str:
        return f"Shard(dim={self.dim})"

    def __str__(self) -> str:
        return f"S({self.dim})"


class Replicate(Placement):
    """The whole tensor on every rank."""

    def is_replicate(self) -> bool:
        return True

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Replicate)

    def __hash__(self) -> int:
        return hash("Replicate")

    def __repr__(self) -> str:
        return "Replicate()"

    def __str__(self) -> str:
        return "R"
