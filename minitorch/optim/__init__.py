"""``minitorch.optim``: optimizers that update parameters from their gradients, and lr schedules.

Each optimizer's file states its update rule at the top and writes it once, for one
parameter: ``_update_parameter(p, grad, state, group)``, the formula line by line (what
PyTorch calls the single-tensor implementation), with ``_init_state`` making the buffers
it keeps. ``Optimizer`` (``optimizer.py``) does the rest for all of them: parameter groups,
checks, state, ``step(closure)``, ``zero_grad``, ``state_dict``.

Faster ways to run the same rule for a whole group (PyTorch's ``foreach`` and ``fused``:
several small CPU parameters as one flat array, one GPU kernel per parameter) live in
``minitorch/kernels/optimizers/`` and attach themselves to these classes; ``foreach=False``,
or the fast kernels switched off (``MINITORCH_FAST_KERNELS=0``), runs the formula.
"""

from minitorch.optim import lr_scheduler
from minitorch.optim.adadelta import Adadelta
from minitorch.optim.adagrad import Adagrad
from minitorch.optim.adam import Adam, AdamW
from minitorch.optim.lbfgs import LBFGS
from minitorch.optim.optimizer import Optimizer
from minitorch.optim.rmsprop import RMSprop
from minitorch.optim.sgd import SGD
