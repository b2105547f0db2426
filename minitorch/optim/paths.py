"""Which implementation runs an optimizer's step: single-tensor, foreach or fused.

As in PyTorch (``torch.optim.adam.adam()``), one update rule can have three implementations
that compute the same formula in different ways:

    single_tensor   a loop over the parameters, one array expression per line of the
                    formula: the textbook update, the one to read (``_single_tensor_adam``)
    foreach         the whole group at once: its gradients and buffers as one flat array
                    each, so each line of the formula is one NumPy call for the group
                    (``_multi_tensor_adam``, built on ``minitorch.optim.foreach``); the
                    same bits as the loop, in fewer calls
    fused           one hand-written GPU kernel per parameter doing the whole update
                    (``_fused_adam``, ``minitorch.cuda.kernels``: SGD with momentum and
                    Adam/AdamW); the same formula, rounded the GPU's way

``step()`` gathers each group's parameters that have a gradient into lists (parameters,
gradients, their state), asks ``choose_path`` once, and runs the one function it names on
those lists: nothing inside the per-parameter loops decides how to update.

The rule, the same for every optimizer (``foreach`` and ``fused`` are group settings, both
None by default):

1. **fused** if the optimizer has a kernel for the group's options, every parameter is on
   a device that provides the kernels (a GPU, custom kernels switched on) with a gradient
   of its own dtype, and neither ``fused=False`` nor ``foreach=False`` was asked;
2. **foreach** if the optimizer has a flat step for the group's options, ``foreach`` is
   not False, the flat step gives the loop's numbers here (``foreach.prepare_flat_group``:
   NumPy arrays of one float dtype, one step count, ...) and either ``foreach=True`` or
   the group is several small parameters (``foreach.worth_grouping``: otherwise the loop
   is faster);
3. **single_tensor** otherwise, and always for ``foreach=False``.

So the default picks the fastest implementation MiniTorch has, as PyTorch's default does
(PyTorch picks foreach for CUDA tensors; here the GPU has fused kernels and the CPU the
flat step). A request that can't be honoured (``fused=True`` on the CPU, where there is no
fused kernel; ``foreach=True`` with mixed dtypes) falls to the next rule instead of
raising: these settings choose the speed, never the numbers.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.optim import foreach as multi_tensor
from minitorch.tensor import Tensor

SINGLE_TENSOR = "single_tensor"
FOREACH = "foreach"
FUSED = "fused"


def choose_path(
    optimizer: Any,
    group: dict[str, Any],
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]] | None,
) -> str:
    """``"fused"``, ``"foreach"`` or ``"single_tensor"``: the implementation that runs this group's step.

    ``params`` are the group's parameters that have a gradient, ``grads`` their gradient
    arrays and ``states`` their state dicts (None for an optimizer with no flat step). The
    optimizer says what it has: ``_fused_step_supports(group)`` and ``_flat_step_keys(group)``.
    """
    foreach, fused = group.get("foreach"), group.get("fused")
    if fused is not False and foreach is not False and optimizer._fused_step_supports(group):
        # (the first parameter alone answers on the CPU, where there are no kernels: the hot case)
        if backends.kernels_for(params[0].data) is not None and all(
            backends.kernels_for(p.data) is not None and g.dtype == p.data.dtype for p, g in zip(params, grads)
        ):
            return FUSED
    if foreach is False or states is None:
        return SINGLE_TENSOR
    keys = optimizer._flat_step_keys(group)
    if keys is None:  # no flat step for these options
        return SINGLE_TENSOR
    if foreach is None and not multi_tensor.worth_grouping(params):
        return SINGLE_TENSOR
    # The last test readies the group's flat buffers too, for the step to take (foreach.flat_group).
    if not multi_tensor.prepare_flat_group(optimizer, group, params, grads, states, keys, optimizer.flat_work_arrays):
        return SINGLE_TENSOR
    return FOREACH
