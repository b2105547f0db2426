"""``ZeroRedundancyOptimizer``: ZeRO stage 1, each rank keeps the optimizer state of its share only.

With data parallelism every rank holds the whole model, its gradients and the optimizer's
state; for Adam the state (two moments per weight) is twice the model. ZeRO-1 (Rajbhandari
et al., 2020) *shards* that state: the parameters are dealt out to the ranks, and

1. **shard**: rank r's local optimizer (``.optim``, of ``optimizer_class``) holds only the
   parameters dealt to it, so it keeps state for those only: about 1/N of it;
2. **update**: ``step()`` runs that optimizer, which updates rank r's share of the
   parameters from their gradients (already averaged over the ranks, by DDP);
3. **broadcast**: each rank then sends its updated share to every other rank, so every rank
   holds the whole updated model again, the same bits everywhere.

The parameters are dealt as PyTorch deals them: largest first, each to the rank with the
fewest elements so far. The update is the optimizer's own, on the same numbers, so the
parameters after each step are those of one process running ``optimizer_class`` on all
of them. Each rank's share travels as one flat buffer per dtype (a broadcast per rank).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.distributed import collectives
from minitorch.distributed.base import DistributedError
from minitorch.distributed.group import current_group
from minitorch.factories import from_numpy
from minitorch.functions import cat
from minitorch.optim.optimizer import Optimizer
from minitorch.tensor import Tensor


class ZeroRedundancyOptimizer(Optimizer):
    """Wrap ``optimizer_class`` so that each rank keeps the state of its share of ``params`` only."""

    def __init__(self, params: Iterable[Any], optimizer_class: type[Optimizer], process_group: Any = None,
                 parameters_as_bucket_view: bool = False, overlap_with_ddp: bool = False, **defaults: Any) -> None:
        if not (isinstance(optimizer_class, type) and issubclass(optimizer_class, Optimizer)):
            raise TypeError(f"ZeroRedundancyOptimizer: optimizer_class must be an optimizer class such as "
                            f"optim.Adam, got {optimizer_class!r}")
        if overlap_with_ddp:
            raise DistributedError("ZeroRedundancyOptimizer: overlap_with_ddp=True is not supported in MiniTorch")
        self.process_group = current_group()
        self.rank, self.world_size = self.process_group.rank, self.process_group.size
        self._optimizer_class, self._local_defaults = optimizer_class, dict(defaults)
        self._all_state_dicts: list[dict[str, Any]] = []
        super().__init__(params, defaults)
        split = [p for group in self.param_groups for p in group["params"] if getattr(p, "placements", None)]
        if split:
            raise DistributedError("ZeroRedundancyOptimizer: a parameter is a DTensor (tensor parallel), whose ranks "
                                   "each hold a different slice: broadcasting it from one rank would overwrite the "
                                   "others'. Use ZeRO with data parallelism (DDP) or tensor parallelism, not both")
        self._check_same_parameters()
        self._owner = self._deal()  # id(parameter) -> its rank
        local_groups = [{**_settings(group), "params": [p for p in group["params"] if self._owner[id(p)] == self.rank]}
                        for group in self._groups_largest_first()]
        self.optim = optimizer_class(local_groups, **defaults)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group while building (MiniTorch deals the parameters out once, so not afterwards)."""
        if "optim" in self.__dict__:
            raise DistributedError("ZeroRedundancyOptimizer.add_param_group: the parameters were dealt out to the "
                                   "ranks when it was built; build it with every group instead")
        super().add_param_group(param_group)

    # ------------------------------------------------------------------ dealing the parameters
    def _groups_largest_first(self) -> list[dict[str, Any]]:
        """Each group with its parameters sorted by size, largest first (the order they are dealt in)."""
        return [{**group, "params": sorted(group["params"], key=lambda p: -p.numel())} for group in self.param_groups]

    def _deal(self) -> dict[int, int]:
        """Largest parameter first, each to the rank with the fewest elements so far (PyTorch's rule)."""
        owner: dict[int, int] = {}
        sizes = [0] * self.world_size
        for group in self._groups_largest_first():
            for p in group["params"]:
                rank = sizes.index(min(sizes))
                owner[id(p)] = rank
                sizes[rank] += p.numel()
        return owner

    def _check_same_parameters(self) -> None:
        mine = [(tuple(p.shape), str(p.dtype)) for group in self.param_groups for p in group["params"]]
        everyone = self.process_group.allgather_object(mine)
        for rank, theirs in enumerate(everyone):
            if theirs != mine:
                raise DistributedError(f"ZeroRedundancyOptimizer: rank {self.rank} and rank {rank} have different "
                                       f"parameters ({len(mine)} vs {len(theirs)}, or other shapes); every rank must "
                                       "pass the same model's parameters in the same order")

    # ------------------------------------------------------------------ the step
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update this rank's share (its optimizer's step), then broadcast every share from its rank."""
        _copy_settings(self.param_groups, self.optim.param_groups)  # an lr scheduler changes self.param_groups
        loss = self.optim.step() if closure is None else self.optim.step(closure)
        _copy_settings(self.optim.param_groups, self.param_groups)
        self._broadcast_shares()
        return loss

    def _broadcast_shares(self) -> None:
        """Every rank's updated parameters to every rank: one flat buffer per (rank, dtype)."""
        if self.world_size == 1:
            return
        params = [p for group in self._groups_largest_first() for p in group["params"]]
        for rank in range(self.world_size):
            share = [p for p in params if self._owner[id(p)] == rank]
            for dtype in sorted({str(p.data.dtype) for p in share}):
                same = [p for p in share if str(p.data.dtype) == dtype]
                flat = cat([p.detach().reshape(-1) for p in same])  # a new buffer, on the parameters' device
                collectives.broadcast(flat, src=rank)
                offset = 0
                for p in same:
                    n = p.data.size
                    p.data[...] = flat.data[offset: offset + n].reshape(p.data.shape)
                    p._bump_version()  # changed in place: a graph that saved it is stale
                    offset += n

    # ------------------------------------------------------------------ saving
    def consolidate_state_dict(self, to: int = 0) -> None:
        """Gather every rank's local optimizer state on rank ``to`` (call it on every rank)."""
        if not 0 <= to < self.world_size:
            raise DistributedError(f"consolidate_state_dict: to must be a rank, got {to}")
        _copy_settings(self.param_groups, self.optim.param_groups)
        everyone = self.process_group.allgather_object(_plain(self.optim.state_dict()))
        self._all_state_dicts = everyone if self.rank == to else []

    def state_dict(self) -> dict[str, Any]:
        """The whole optimizer's state, as one ``optimizer_class`` over every parameter would save it.

        Only on the rank that ``consolidate_state_dict(to=...)`` gathered it on.
        """
        if not self._all_state_dicts:
            raise RuntimeError(f"Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant to "
                               "save the global state.")
        whole = super().state_dict()  # hyperparameters and parameter indices of every group
        index = {id(p): i for i, p in enumerate(p for group in self.param_groups for p in group["params"])}
        for rank, local in enumerate(self._all_state_dicts):
            for g, group in enumerate(self._groups_largest_first()):
                theirs = [p for p in group["params"] if self._owner[id(p)] == rank]
                for local_index, p in zip(local["param_groups"][g]["params"], theirs):
                    if local_index in local["state"]:
                        saved = local["state"][local_index]
                        whole["state"][index[id(p)]] = {k: _as_tensor(v) for k, v in saved.items()}
        whole["state"] = dict(sorted(whole["state"].items()))
        return whole

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Load a whole state (what ``state_dict()`` returned): this rank keeps its share's part."""
        Optimizer.load_state_dict(self, state_dict)  # checks it; sets every group's hyperparameters
        index = {id(p): i for i, p in enumerate(p for group in self.param_groups for p in group["params"])}
        local_groups, local_state, n = [], {}, 0
        for group, saved in zip(self._groups_largest_first(), state_dict["param_groups"]):
            mine = [p for p in group["params"] if self._owner[id(p)] == self.rank]
            for p in mine:
                if index[id(p)] in state_dict["state"]:
                    local_state[n] = state_dict["state"][index[id(p)]]
                n += 1
            local_groups.append({**_settings(saved), "params": list(range(n - len(mine), n))})
        self.optim.load_state_dict({"state": local_state, "param_groups": local_groups})
        self.state = {}  # the state lives in self.optim


def _settings(group: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in group.items() if k not in ("params", "param_names")}


def _copy_settings(source: list[dict[str, Any]], target: list[dict[str, Any]]) -> None:
    for a, b in zip(source, target):
        b.update(_settings(a))


def _plain(state_dict: dict[str, Any]) -> dict[str, Any]:
    """A state_dict with NumPy arrays instead of Tensors, to travel pickled."""
    state = {i: {k: (backends.to_device(v.data, "cpu") if isinstance(v, Tensor) else v) for k, v in s.items()}
             for i, s in state_dict["state"].items()}
    return {"state": state, "param_groups": state_dict["param_groups"]}


def _as_tensor(value: Any) -> Any:
    return from_numpy(value) if isinstance(value, np.ndarray) else value
