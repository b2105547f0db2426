"""``parallelize_module(module, mesh, plan)``: split the plan's Linear layers over the mesh's ranks.

    plan = {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()}
    parallelize_module(model, mesh, plan)      # returns model, its fc1 and fc2 now split

A plan key names a submodule by its dotted path (``"layers.0.fc1"``); ``*`` in a part of
it matches any name there (``"layers.*.fc1"``). A key that names no submodule is skipped
with a warning naming it, as PyTorch does. Before anything changes, the ranks compare
their plans (the keys' modules, styles and sizes): ranks that would split different layers
would later exchange tensors of different shapes, so a difference raises the same
``DistributedError`` on every rank instead. Rank ``src_data_rank``'s weights are the
ones that get split, so the parallel model computes what that rank's model computed.
"""

from __future__ import annotations

import fnmatch
import warnings
from typing import Any

from minitorch.distributed.base import DistributedError
from minitorch.distributed.device_mesh import DeviceMesh
from minitorch.distributed.tensor.parallel.style import ParallelStyle
from minitorch.nn.module import Module


def parallelize_module(module: Module, device_mesh: DeviceMesh | None = None,
                       parallelize_plan: ParallelStyle | dict[str, ParallelStyle] | None = None, *,
                       src_data_rank: int = 0) -> Module:
    """Apply ``parallelize_plan`` (a style, or ``{submodule path: style}``) to ``module``; returns ``module``."""
    if not isinstance(module, Module):
        raise TypeError(f"parallelize_module: expected an nn.Module, got {type(module).__name__}")
    if not isinstance(device_mesh, DeviceMesh):
        raise DistributedError("parallelize_module: pass the mesh, e.g. init_device_mesh('cpu', (world_size,)); got "
                               f"{type(device_mesh).__name__}")
    if src_data_rank != 0:
        raise DistributedError("parallelize_module: MiniTorch splits rank 0's weights (src_data_rank=0)")
    if parallelize_plan is None:
        warnings.warn("parallelize_module: no parallelize_plan was given, so nothing was parallelized", stacklevel=2)
        return module
    targets = _resolve(module, parallelize_plan)
    _agree_on_the_plan(device_mesh, targets)
    for name, submodule, style in targets:
        style.check(name or type(module).__name__, submodule, device_mesh.size())
    for _, submodule, style in targets:
        style.apply(submodule, device_mesh)
    return module


def _resolve(module: Module, plan: Any) -> list[tuple[str, Module, ParallelStyle]]:
    """(path, submodule, style) for every submodule the plan names, in the plan's order."""
    if isinstance(plan, ParallelStyle):
        return [("", module, plan)]
    if not isinstance(plan, dict):
        raise TypeError(f"parallelize_module: the plan must be a ParallelStyle or a dict {{submodule path: style}}, "
                        f"got {type(plan).__name__}")
    targets: list[tuple[str, Module, ParallelStyle]] = []
    taken: dict[str, str] = {}
    for key, style in plan.items():
        if not isinstance(key, str) or not isinstance(style, ParallelStyle):
            raise TypeError(f"parallelize_module: plan entries are 'submodule path': ColwiseParallel() or "
                            f"RowwiseParallel(), got {key!r}: {style!r}")
        found = _matching(module, key.split("."), "")
        if not found:
            children = ", ".join(name for name, _ in module.named_children()) or "none"
            warnings.warn(f"parallelize_module: the plan key {key!r} names no submodule of {type(module).__name__} "
                          f"(its submodules: {children}); nothing was done for it", stacklevel=3)
        for path, submodule in found:
            if path in taken:
                raise DistributedError(f"parallelize_module: {path!r} is named by two plan keys, {taken[path]!r} "
                                       f"and {key!r}")
            taken[path] = key
            targets.append((path, submodule, style))
    return targets


def _matching(module: Module, atoms: list[str], prefix: str) -> list[tuple[str, Module]]:
    """The submodules under ``module`` whose path matches ``atoms`` (each a name or a ``*`` pattern)."""
    if not atoms:
        return [(prefix, module)]
    found = []
    for name, child in module.named_children():
        if child is not None and fnmatch.fnmatchcase(name, atoms[0]):
            found += _matching(child, atoms[1:], f"{prefix}.{name}" if prefix else name)
    return found


def _agree_on_the_plan(mesh: DeviceMesh, targets: list[tuple[str, Module, ParallelStyle]]) -> None:
    """The same error on every rank when the ranks' plans (paths, styles, layer sizes) differ."""
    mine = [[path, *style.describe(submodule)] for path, submodule, style in targets]
    everyone = mesh.get_group().allgather_object(mine)
    if all(theirs == everyone[0] for theirs in everyone):
        return
    lines = []
    for rank, theirs in enumerate(everyone):
        shown = "; ".join(f"{p or '(the module)'}: {s} of {t}({i}, {o})" for p, s, t, i, o, _ in theirs) or "nothing"
        lines.append(f"rank {rank} splits {shown}")
    raise DistributedError("parallelize_module: the ranks' plans differ, so their layers would not fit together. "
                           + ". ".join(lines) + ". Every rank must parallelize the same model with the same plan")
