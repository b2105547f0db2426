"""``minitorch.optim``: optimizers that update parameters from their gradients, and lr schedules.

How a step runs (as in PyTorch's ``torch.optim.adam.adam()``): ``step()`` gathers, for each
parameter group, the parameters that have a gradient into lists (parameters, gradients,
state) and ``paths.choose_path`` picks ONE implementation for the whole group:

- ``_single_tensor_<name>`` (in each optimizer's file): a loop over the parameters, the
  textbook update line by line -- the one to read first;
- ``_multi_tensor_<name>`` (Adam/AdamW, RMSprop, Adagrad, Adadelta; built on ``foreach.py``):
  the group as one flat array per buffer, each line of the formula one NumPy call for the
  whole group, with the loop's numbers to the last bit;
- ``_fused_<name>`` (SGD with momentum, Adam/AdamW): one GPU kernel per parameter
  (``minitorch.cuda.kernels``).

``foreach=False`` always runs the loop; the default (``foreach=None``) runs the fused kernel
on a GPU and the flat step for several small CPU parameters. ``paths.py`` states the rule.
"""

from minitorch.optim import lr_scheduler
from minitorch.optim.adadelta import Adadelta
from minitorch.optim.adagrad import Adagrad
from minitorch.optim.adam import Adam, AdamW
from minitorch.optim.lbfgs import LBFGS
from minitorch.optim.optimizer import Optimizer
from minitorch.optim.rmsprop import RMSprop
from minitorch.optim.sgd import SGD
