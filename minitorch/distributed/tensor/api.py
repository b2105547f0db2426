"""``distribute_tensor``: cut a whole tensor into a DTensor's shards.

Every rank calls it with its own copy of the tensor; rank ``src_data_rank`` (0) is the
one whose values count (it broadcasts them first, as PyTorch does), so ranks that
initialised their copies with different random numbers still end up with one tensor.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitorch.autograd.grad_mode import no_grad
from minitorch.distributed import collectives
from minitorch.distributed.base import DistributedError
from minitorch.distributed.device_mesh import DeviceMesh
from minitorch.distributed.tensor.dtensor import DTensor, _as_dtensor, _mesh_or_error, local_slice, normalize_placements
from minitorch.distributed.tensor.placement_types import Placement
from minitorch.tensor import Tensor


def distribute_tensor(tensor: Tensor, device_mesh: DeviceMesh, placements: Sequence[Placement] | None = None, *,
                      src_data_rank: int = 0, cls: type[DTensor] = DTensor) -> DTensor:
    """A new leaf DTensor holding this rank's part of ``tensor`` (rank ``src_data_rank``'s values).

    ``requires_grad`` is ``tensor``'s. A dimension that the mesh's ranks cannot share
    equally is a clear error (MiniTorch's shards are equal).
    """
    if not isinstance(tensor, Tensor) or isinstance(tensor, DTensor):
        raise TypeError(f"distribute_tensor: expected a plain minitorch Tensor, got {type(tensor).__name__}")
    mesh = _mesh_or_error("distribute_tensor", device_mesh)
    chosen = normalize_placements("distribute_tensor", placements, tensor.ndim)
    group = mesh.get_group()
    if not 0 <= src_data_rank < group.size:
        raise DistributedError(f"distribute_tensor: src_data_rank must be a rank of the mesh, got {src_data_rank}")
    with no_grad():
        whole = tensor.detach().clone()
        if group.size > 1:
            collectives.broadcast(whole, src_data_rank)  # agreed first: shapes that differ raise on every rank
        local = local_slice(whole, chosen[0], mesh).contiguous().clone()
    local.requires_grad_(tensor.requires_grad)
    return _as_dtensor(local, mesh, chosen, tensor.shape, cls)
