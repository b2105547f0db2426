"""``minitorch.optim``: optimizers that update parameters from their gradients, and lr schedules."""

from minitorch.optim import lr_scheduler
from minitorch.optim.adam import Adam, AdamW
from minitorch.optim.optimizer import Optimizer
from minitorch.optim.sgd import SGD
