"""``minitorch.optim``: optimizers that update parameters from their gradients, and lr schedules."""

from minitorch.optim import lr_scheduler
from minitorch.optim.adadelta import Adadelta
from minitorch.optim.adagrad import Adagrad
from minitorch.optim.adam import Adam, AdamW
from minitorch.optim.lbfgs import LBFGS
from minitorch.optim.optimizer import Optimizer
from minitorch.optim.rmsprop import RMSprop
from minitorch.optim.sgd import SGD
