"""``ColwiseParallel`` and ``RowwiseParallel``: how one ``nn.Linear`` is split over the ranks (Megatron-LM).

A Linear computes ``y = x @ W.T + b`` with ``W`` of shape (out, in).

- **Column-parallel** (``ColwiseParallel``): rank r keeps rows r of ``W`` and ``b`` (each
  ``Shard(0)``), i.e. its slice of the *output* features. Every rank gets the whole input
  and computes its slice of the output: no communication in forward. In backward each rank
  only knows its share of the input's gradient, so they are summed (an all-reduce).
- **Row-parallel** (``RowwiseParallel``): rank r keeps columns r of ``W`` (``Shard(1)``),
  its slice of the *input* features, and the whole bias (``Replicate()``). Its input is
  that slice (what a column-parallel layer before it produced), its product a partial
  output: forward sums the partial outputs (an all-reduce), then adds the bias once.

So a column-parallel layer followed by a row-parallel one (an MLP, or attention's q/k/v
then its output projection) needs one all-reduce in forward and one in backward, and the
elementwise work between them (ReLU, attention per head) runs on each rank's slice alone.
The layouts are PyTorch's defaults: a replicated input in, a plain full tensor out.
"""

from __future__ import annotations

import types
from typing import Any, cast

from minitorch.distributed.base import DistributedError
from minitorch.distributed.device_mesh import DeviceMesh
from minitorch.distributed.differentiable import AllReduceInBackward, AllReduceInForward
from minitorch.distributed.tensor.api import distribute_tensor
from minitorch.distributed.tensor.dtensor import DTensor
from minitorch.distributed.tensor.placement_types import Placement, Replicate, Shard
from minitorch.nn.functional import linear
from minitorch.nn.layers import Linear
from minitorch.nn.module import Module, Parameter
from minitorch.tensor import Tensor


class DTensorParameter(DTensor, Parameter):
    """A module's parameter that is a DTensor (PyTorch's ``nn.Parameter(DTensor)``)."""


class ParallelStyle:
    """How to split one module over a mesh; ``parallelize_module`` applies it."""

    # (input layout, output layout) PyTorch uses by default; the only ones MiniTorch supports
    default_layouts: tuple[Placement, Placement] = (Replicate(), Replicate())

    def __init__(self, *, input_layouts: Any = None, output_layouts: Any = None, use_local_output: bool = True) -> None:
        name = type(self).__name__
        want_in, want_out = self.default_layouts
        for given, wanted, arg in ((input_layouts, want_in, "input_layouts"),
                                   (output_layouts, want_out, "output_layouts")):
            if not _same_layout(given, wanted):
                raise DistributedError(f"{name}: MiniTorch supports only PyTorch's default {arg}={wanted!r}, got "
                                       f"{given!r}")
        if use_local_output is not True:
            raise DistributedError(f"{name}: MiniTorch supports only use_local_output=True (a plain tensor out)")

    def describe(self, module: Module) -> list[Any]:
        """What every rank must agree on for this module: the style and the Linear's sizes."""
        return [type(self).__name__, type(module).__name__, getattr(module, "in_features", None),
                getattr(module, "out_features", None), getattr(module, "bias", None) is not None]

    def check(self, name: str, module: Module, ranks: int) -> None:
        """A clear error when this style cannot split ``module`` over ``ranks`` ranks."""
        style = type(self).__name__
        if not isinstance(module, Linear):
            raise DistributedError(f"{style}: {name!r} is a {type(module).__name__}; MiniTorch's {style} splits an "
                                   "nn.Linear (give the plan the Linear layers themselves)")
        if isinstance(module.weight, DTensor):
            raise DistributedError(f"{style}: {name!r} is already parallelized")
        features, what = self.split_features(module)
        if features % ranks:
            raise DistributedError(f"{style}: {name!r} has {what}={features}, which the {ranks} ranks of the mesh "
                                   f"cannot share equally; MiniTorch needs {what} divisible by {ranks}")

    def split_features(self, module: Linear) -> tuple[int, str]:
        raise NotImplementedError

    def apply(self, module: Module, mesh: DeviceMesh) -> None:
        raise NotImplementedError


def _same_layout(given: Any, wanted: Placement) -> bool:
    """``given`` (None, a placement or a 1-sequence of one) is ``wanted``; Shard(-1) is any last dimension."""
    if given is None:
        return True
    if isinstance(given, (list, tuple)):
        return len(given) == 1 and _same_layout(given[0], wanted)
    return given == wanted


def _distributed_parameter(p: Parameter, mesh: DeviceMesh, placement: Placement) -> DTensorParameter:
    return distribute_tensor(p, mesh, [placement], cls=DTensorParameter)  # type: ignore[return-value]


class ColwiseParallel(ParallelStyle):
    """Split a Linear's output features: weight and bias ``Shard(0)``; replicated input in, local slice out."""

    default_layouts = (Replicate(), Shard(-1))

    def split_features(self, module: Linear) -> tuple[int, str]:
        return module.out_features, "out_features"

    def apply(self, module: Module, mesh: DeviceMesh) -> None:
        assert isinstance(module, Linear)  # check() said so
        module.weight = _distributed_parameter(module.weight, mesh, Shard(0))
        if module.bias is not None:
            module.bias = _distributed_parameter(module.bias, mesh, Shard(0))
        object.__setattr__(module, "forward", types.MethodType(_colwise_forward, module))


class RowwiseParallel(ParallelStyle):
    """Split a Linear's input features: weight ``Shard(1)``, bias ``Replicate()``; local slice in, full output out."""

    default_layouts = (Shard(-1), Replicate())

    def split_features(self, module: Linear) -> tuple[int, str]:
        return module.in_features, "in_features"

    def apply(self, module: Module, mesh: DeviceMesh) -> None:
        assert isinstance(module, Linear)  # check() said so
        module.weight = _distributed_parameter(module.weight, mesh, Shard(1))
        if module.bias is not None:
            module.bias = _distributed_parameter(module.bias, mesh, Replicate())
        object.__setattr__(module, "forward", types.MethodType(_rowwise_forward, module))


def _sharded(module: Linear) -> tuple[DTensorParameter, DTensorParameter | None]:
    """A Linear's weight and bias, which ``apply`` replaced with ``DTensorParameter``s."""
    return cast(DTensorParameter, module.weight), cast("DTensorParameter | None", module.bias)


def _colwise_forward(self: Linear, x: Tensor) -> Tensor:
    """This rank's slice of the output features; backward sums the input's gradient over the ranks."""
    weight, bias = _sharded(self)
    x = AllReduceInBackward.apply(x, weight.device_mesh.get_group())
    return linear(x, weight.to_local(), None if bias is None else bias.to_local())


def _rowwise_forward(self: Linear, x: Tensor) -> Tensor:
    """The partial products of every rank summed (all-reduce), then the bias, added once."""
    weight, bias = _sharded(self)
    expected = self.in_features // weight.device_mesh.size()
    if x.shape[-1] != expected:
        raise DistributedError(f"RowwiseParallel: the input has {x.shape[-1]} features, but this rank's slice of "
                               f"the Linear({self.in_features}, {self.out_features}) takes {expected} (its input is "
                               "the local slice a ColwiseParallel layer before it produces)")
    partial = linear(x, weight.to_local(), None)
    out = AllReduceInForward.apply(partial, weight.device_mesh.get_group())
    return out if bias is None else out + bias.to_local()
