"""``DTensor``: one tensor laid out over the ranks of a mesh, each rank holding its shard.

A DTensor *is* its shard to the engine and the optimizers: ``.data`` is this rank's local
array, so backward accumulates this rank's gradient into it and ``SGD``/``Adam`` update it
in place, like any parameter. To everyone else it is the whole tensor: ``.shape`` is the
global shape, ``.placements`` says how it is cut (``Shard(dim)``: equal slices along
``dim``, the r-th on rank r; ``Replicate()``: all of it everywhere), ``.to_local()`` is the
shard as a plain tensor and ``.full_tensor()`` gathers the whole. Both are differentiable.

PyTorch also runs every op on DTensors, deciding how each result is laid out. MiniTorch
does not: a Tensor method would compute on ``.data``, this rank's shard only, and give a
shard's answer where the whole tensor's is asked for (``w.sum()``). So those methods raise
here (``refusals.py``); call ``to_local()`` or ``full_tensor()`` first.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from minitorch.distributed.base import DistributedError
from minitorch.distributed.device_mesh import DeviceMesh
from minitorch.distributed.differentiable import FromLocal, FullTensor, ToLocal
from minitorch.distributed.tensor.placement_types import Placement, Replicate, Shard
from minitorch.distributed.tensor.refusals import refuse_tensor_methods
from minitorch.size import Size
from minitorch.tensor import Tensor
from minitorch.tensor_base import TensorBase


class DTensor(Tensor):
    """A distributed tensor: this rank's shard in ``.data``, the whole tensor's shape in ``.shape``."""

    _mesh: DeviceMesh
    _placements: tuple[Placement, ...]
    _global_shape: Size

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("DTensor(...): build one with distribute_tensor(tensor, mesh, placements) or "
                        "DTensor.from_local(local_tensor, mesh, placements)")

    # ------------------------------------------------------------------ making one
    @staticmethod
    def from_local(local_tensor: Tensor, device_mesh: DeviceMesh | None = None,
                   placements: Sequence[Placement] | None = None, *, run_check: bool = False,
                   shape: Any = None, stride: Any = None) -> DTensor:
        """This rank's ``local_tensor`` as its shard of a DTensor (differentiable: gradients reach it).

        Every rank passes its own shard; with ``Shard(d)`` the global size of ``d`` is the
        local one times the number of ranks. ``run_check=True`` compares the shards' shapes
        and dtypes across the ranks first.
        """
        if not isinstance(local_tensor, Tensor) or isinstance(local_tensor, DTensor):
            raise TypeError(f"DTensor.from_local: expected a plain minitorch Tensor, got {type(local_tensor).__name__}")
        mesh = _mesh_or_error("DTensor.from_local", device_mesh)
        chosen = normalize_placements("DTensor.from_local", placements, local_tensor.ndim)
        global_shape = Size(shape) if shape is not None else global_shape_of(local_tensor.shape, chosen, mesh.size())
        if run_check:
            _check_same_on_every_rank(mesh, local_tensor, chosen)
        out = FromLocal.apply(local_tensor)
        return _as_dtensor(out, mesh, chosen, global_shape)

    # ------------------------------------------------------------------ the two views of it
    def to_local(self, *, grad_placements: Any = None) -> Tensor:
        """This rank's shard as a plain Tensor (a view); gradients flow back into this DTensor."""
        return ToLocal.apply(self)

    def full_tensor(self, *, grad_placements: Any = None) -> Tensor:
        """The whole tensor on every rank (an all-gather of the shards); differentiable."""
        placement = self._placements[0]
        if isinstance(placement, Shard):
            return FullTensor.apply(self, placement.dim, self._mesh.get_group())
        return self.to_local()

    def redistribute(self, device_mesh: DeviceMesh | None = None,
                     placements: Sequence[Placement] | None = None) -> DTensor:
        """The same tensor laid out as ``placements`` (gathering or slicing as needed); differentiable."""
        mesh = self._mesh if device_mesh is None else device_mesh
        chosen = normalize_placements("DTensor.redistribute", placements, self.ndim)
        if chosen == self._placements:
            return self
        full = self.full_tensor()
        return DTensor.from_local(local_slice(full, chosen[0], mesh), mesh, chosen, shape=self._global_shape)

    @property
    def device_mesh(self) -> DeviceMesh:
        """The mesh the shards live on."""
        return self._mesh

    @property
    def placements(self) -> tuple[Placement, ...]:
        """How the tensor is laid out on each mesh dimension: ``(Shard(dim),)`` or ``(Replicate(),)``."""
        return self._placements

    # ------------------------------------------------------------------ the whole tensor's sizes
    @property
    def shape(self) -> Size:
        """The whole (global) tensor's shape; ``to_local().shape`` is this rank's shard's."""
        return self._global_shape

    @property
    def ndim(self) -> int:
        return len(self._global_shape)

    def dim(self) -> int:
        """Number of dimensions."""
        return len(self._global_shape)

    def size(self, dim: int | None = None) -> Any:
        """The global shape, or the global size of dimension ``dim``."""
        return self._global_shape if dim is None else self._global_shape[dim]

    def numel(self) -> int:
        """Elements of the whole tensor (all ranks' shards together)."""
        total = 1
        for n in self._global_shape:
            total *= n
        return total

    nelement = numel

    @property
    def nbytes(self) -> int:
        """Bytes of the whole tensor (``to_local().nbytes``: this rank's)."""
        return self.numel() * self.data.itemsize

    # ------------------------------------------------------------------ gradient, detach, in-place scaling
    @property
    def grad(self) -> DTensor | None:
        """This rank's gradient shard, as a DTensor with this tensor's placements (None before backward)."""
        g = self._grad
        if g is not None and not isinstance(g, DTensor):
            # The engine stores a plain tensor of the shard's gradient: lay it out as its parameter is,
            # in place, so that later backward passes keep accumulating into the same object.
            _as_dtensor(g, self._mesh, self._placements, self._global_shape)
        return g  # type: ignore[return-value]

    @grad.setter
    def grad(self, value: Any) -> None:
        if value is not None:
            if not isinstance(value, DTensor) or value.placements != self._placements or \
                    value.data.shape != self.data.shape or value.data.dtype != self.data.dtype:
                got = f"a DTensor {value.placements}" if isinstance(value, DTensor) else type(value).__name__
                raise DistributedError(f"DTensor.grad: assign None or a DTensor with placements {self._placements} "
                                       f"and a local shard of shape {tuple(self.data.shape)} {self.data.dtype}; got "
                                       f"{got}")
        self._grad = value

    def detach(self) -> DTensor:
        """The same shards, cut off from the graph."""
        return _as_dtensor(TensorBase.detach(self), self._mesh, self._placements, self._global_shape)

    def zero_(self) -> DTensor:
        """Set every rank's shard to zero."""
        Tensor.zero_(self)
        return self

    def mul_(self, other: Any) -> DTensor:
        """Multiply every element by a number, in place (each rank scales its shard)."""
        _number_only("mul_", other)
        Tensor.mul_(self, other)
        return self

    def div_(self, other: Any) -> DTensor:
        """Divide every element by a number, in place (each rank scales its shard)."""
        _number_only("div_", other)
        Tensor.div_(self, other)
        return self

    def fill_(self, value: Any) -> DTensor:
        """Set every element to the number ``value``."""
        _number_only("fill_", value)
        Tensor.fill_(self, value)
        return self

    def __format__(self, spec: str) -> str:
        return repr(self) if not spec else refuse_op("__format__")

    def __repr__(self) -> str:
        local = repr(TensorBase._make(self.data, None, False))
        grad = ", requires_grad=True" if self.requires_grad else ""
        return f"DTensor(local_tensor={local}, device_mesh={self._mesh!r}, placements={self._placements}{grad})"

    __hash__ = Tensor.__hash__


def _number_only(op: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        refuse_op(op)


def refuse_op(name: str) -> Any:
    """Raise: a Tensor method would compute on this rank's shard only."""
    raise DistributedError(
        f"DTensor.{name}: MiniTorch runs no ops on DTensors (a Tensor method would see only this rank's "
        "shard, and answer for the shard instead of the whole tensor). Call .to_local() for this rank's shard "
        "or .full_tensor() for the whole tensor, and compute on that")


def _as_dtensor(t: TensorBase, mesh: DeviceMesh, placements: tuple[Placement, ...], global_shape: Size,
                cls: type[DTensor] | None = None) -> DTensor:
    """Turn the plain tensor ``t`` (its data: this rank's shard) into a DTensor, in place."""
    t.__class__ = cls or DTensor
    made: DTensor = t  # type: ignore[assignment]
    made._mesh, made._placements, made._global_shape = mesh, placements, Size(global_shape)
    return made


def _mesh_or_error(op: str, mesh: Any) -> DeviceMesh:
    if not isinstance(mesh, DeviceMesh):
        raise DistributedError(f"{op}: expected a DeviceMesh (init_device_mesh('cpu', (world_size,))), got "
                               f"{type(mesh).__name__}")
    return mesh


def normalize_placements(op: str, placements: Any, ndim: int) -> tuple[Placement, ...]:
    """``placements`` as a 1-tuple with ``Shard``'s dim made non-negative; a clear error otherwise."""
    if placements is None:
        return (Replicate(),)
    chosen = tuple(placements)
    if len(chosen) != 1 or not isinstance(chosen[0], Placement):
        raise DistributedError(f"{op}: placements must be one Shard(dim) or Replicate() per mesh dimension (the mesh "
                               f"has 1), e.g. [Shard(0)]; got {placements!r}")
    placement = chosen[0]
    if isinstance(placement, Shard):
        if not -ndim <= placement.dim < ndim:
            raise DistributedError(f"{op}: Shard(dim={placement.dim}) for a tensor with {ndim} dimension(s)")
        return (Shard(placement.dim % ndim),)
    return chosen


def global_shape_of(local_shape: Sequence[int], placements: tuple[Placement, ...], ranks: int) -> Size:
    """The whole tensor's shape, from one shard's (equal shards)."""
    shape = list(local_shape)
    placement = placements[0]
    if isinstance(placement, Shard):
        shape[placement.dim] *= ranks
    return Size(shape)


def local_slice(full: Tensor, placement: Placement, mesh: DeviceMesh) -> Tensor:
    """This rank's part of ``full`` for ``placement`` (a differentiable slice); equal shards only."""
    if not isinstance(placement, Shard):
        return full
    dim, ranks = placement.dim, mesh.size()
    size = full.shape[dim]
    if size % ranks:
        raise DistributedError(f"Shard(dim={dim}): dimension {dim} of shape {tuple(full.shape)} has {size} "
                               f"elements, which the {ranks} ranks of the mesh cannot share equally; MiniTorch "
                               f"needs a size divisible by {ranks}")
    part = size // ranks
    return full.narrow(dim, mesh.get_rank() * part, part)


def _check_same_on_every_rank(mesh: DeviceMesh, local: Tensor, placements: tuple[Placement, ...]) -> None:
    mine = (tuple(local.shape), str(local.dtype), repr(placements))
    everyone = mesh.get_group().allgather_object(mine)
    if any(theirs != mine for theirs in everyone):
        described = "; ".join(f"rank {r}: {s} {d} {p}" for r, (s, d, p) in enumerate(everyone))
        raise DistributedError(f"DTensor.from_local(run_check=True): the ranks' shards differ ({described})")


refuse_tensor_methods(DTensor, refuse_op)
