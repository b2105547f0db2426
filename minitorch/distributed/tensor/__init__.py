"""``minitorch.distributed.tensor``: tensors laid out over the ranks of a mesh (PyTorch's DTensor).

    mesh = init_device_mesh("cpu", (world_size,))
    w = distribute_tensor(minitorch.randn(8, 4), mesh, [Shard(0)])   # rank r: rows 4r/... of 8
    w.shape, w.to_local().shape, w.placements     # (8, 4), (8 // world_size, 4), (Shard(dim=0),)
    w.full_tensor()                                # the whole (8, 4) tensor on every rank

``minitorch.distributed.tensor.parallel`` builds tensor parallelism on it.
"""

from minitorch.distributed.device_mesh import DeviceMesh, init_device_mesh
from minitorch.distributed.tensor.api import distribute_tensor
from minitorch.distributed.tensor.dtensor import DTensor
from minitorch.distributed.tensor.placement_types import Placement, Replicate, Shard

__all__ = ["DTensor", "DeviceMesh", "Placement", "Replicate", "Shard", "distribute_tensor", "init_device_mesh"]
