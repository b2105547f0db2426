"""``minitorch.nn.functional`` (imported as ``F``): the stateless building blocks of networks.

Activations, softmax, losses, ``linear``, ``dropout``, ``conv2d``, ``max_pool2d`` and
``batch_norm``, with PyTorch's names. The ops themselves (forward and backward side by
side) live in ``minitorch/functions/``: ``softmax.py``, ``losses.py``, ``fused.py``
(``Linear``, ``SoftmaxCrossEntropy``), ``conv.py``, ``dropout.py`` and
``normalization.py``. This module only gathers them under the names a network uses.
"""

from minitorch.functions.conv import conv2d, max_pool2d
from minitorch.functions.dropout import dropout
from minitorch.functions.fused import linear
from minitorch.functions.losses import cross_entropy, mse_loss, nll_loss
from minitorch.functions.normalization import batch_norm
from minitorch.functions.softmax import log_softmax, softmax
from minitorch.functions.unary import relu, sigmoid, tanh

__all__ = [
    "batch_norm",
    "conv2d",
    "cross_entropy",
    "dropout",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]
