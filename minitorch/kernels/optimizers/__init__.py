"""Bulk update kernels for the optimizers: their step for a whole parameter group at once.

Each optimizer in ``minitorch/optim/`` writes its update rule once, for one parameter
(``_update_parameter``). The kernels here compute the same rule for a group, registered per
optimizer class and device (``minitorch.kernels.update_registry``):

- ``foreach.py`` (CPU): Adam/AdamW, RMSprop, Adagrad and Adadelta on the group's arrays
  concatenated into one flat array each (``flat.py``), about ten NumPy calls per group
  instead of ten per parameter;
- ``fused.py`` (GPU): SGD with momentum and Adam/AdamW, one hand-written CUDA kernel per
  parameter.

Importing this package registers them.
"""

from minitorch.kernels.optimizers import foreach, fused

__all__ = ["foreach", "fused"]
