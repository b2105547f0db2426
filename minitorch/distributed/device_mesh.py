"""``DeviceMesh``: the ranks a distributed tensor is laid out over; ``init_device_mesh`` builds one.

    dist.init_process_group("mpi")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))   # every rank, in rank order

MiniTorch's meshes are one-dimensional: all the ranks of the process group, in order
(PyTorch also has 2-D meshes, for tensor parallel inside data parallel).
"""

from __future__ import annotations

from typing import Any

from minitorch.distributed.base import DistributedError, ProcessGroup
from minitorch.distributed.group import current_group
from minitorch.factories import arange
from minitorch.tensor import Tensor


class DeviceMesh:
    """The ranks ``0 .. n-1`` of the process group, as one dimension of devices of type ``device_type``."""

    def __init__(self, device_type: str, mesh: Any, *, mesh_dim_names: tuple[str, ...] | None = None) -> None:
        group = current_group()  # a clear error without init_process_group
        ranks = mesh.tolist() if isinstance(mesh, Tensor) else list(mesh)
        if ranks != list(range(group.size)):
            raise DistributedError(f"DeviceMesh: MiniTorch's mesh is every rank of the process group in order, "
                                   f"[0 .. {group.size - 1}]; got {ranks}")
        if str(device_type) != group.device:
            raise DistributedError(f"DeviceMesh: the {group.backend} process group works on {group.device} "
                                   f"tensors, not {device_type!r}; use init_device_mesh({group.device!r}, ...)")
        if mesh_dim_names is not None and len(tuple(mesh_dim_names)) != 1:
            raise DistributedError(f"DeviceMesh: one name per mesh dimension (1), got {mesh_dim_names!r}")
        self.device_type = str(device_type)
        self.mesh = arange(group.size)
        self.mesh_dim_names = None if mesh_dim_names is None else tuple(mesh_dim_names)
        self._group = group

    @property
    def ndim(self) -> int:
        """Number of mesh dimensions (1)."""
        return 1

    @property
    def shape(self) -> tuple[int, ...]:
        """``(number of ranks,)``."""
        return (self._group.size,)

    def size(self, mesh_dim: int | None = None) -> int:
        """How many ranks the mesh (or its dimension ``mesh_dim``) has."""
        if mesh_dim not in (None, 0, -1):
            raise DistributedError(f"DeviceMesh.size: the mesh has one dimension, got mesh_dim={mesh_dim}")
        return self._group.size

    def get_rank(self) -> int:
        """This process's rank."""
        return self._group.rank

    def get_local_rank(self, mesh_dim: int | str | None = None) -> int:
        """This process's position along the mesh (its rank: the mesh is every rank in order)."""
        return self._group.rank

    def get_group(self, mesh_dim: int | str | None = None) -> ProcessGroup:
        """The process group of the mesh's ranks."""
        return self._group

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, DeviceMesh) and other._group is self._group
                and other.device_type == self.device_type)

    def __hash__(self) -> int:
        return hash((id(self._group), self.device_type))

    def __repr__(self) -> str:
        names = f", mesh_dim_names={self.mesh_dim_names}" if self.mesh_dim_names else ""
        return f"DeviceMesh('{self.device_type}', {self.mesh.tolist()}{names})"


def init_device_mesh(device_type: str, mesh_shape: tuple[int, ...], *,
                     mesh_dim_names: tuple[str, ...] | None = None) -> DeviceMesh:
    """A mesh of ``mesh_shape`` (a 1-tuple: the world size) over the process group's ranks."""
    group = current_group()
    shape = tuple(mesh_shape)
    if len(shape) != 1:
        raise DistributedError(f"init_device_mesh: MiniTorch's meshes have one dimension, got mesh_shape={shape} "
                               f"(use ({group.size},))")
    if shape[0] != group.size:
        raise DistributedError(f"init_device_mesh: mesh_shape {shape} needs {shape[0]} ranks, but the process "
                               f"group has {group.size} (launch with mpiexec -n {shape[0]}, or use ({group.size},))")
    return DeviceMesh(device_type, list(range(group.size)), mesh_dim_names=mesh_dim_names)
