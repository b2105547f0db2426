"""``minitorch.nn.functional`` (imported as ``F``): the stateless building blocks of networks.

Activations, softmax, losses, ``linear``, ``dropout``, ``conv2d``, ``max_pool2d``,
``avg_pool2d``, ``adaptive_avg_pool2d`` and ``batch_norm``, and for sequence models
``embedding``, ``layer_norm``, ``gelu`` and ``scaled_dot_product_attention``, with
PyTorch's names. The ops themselves (forward and backward side by side) live in
``minitorch/functions/``: ``softmax.py``, ``activations.py``, ``losses.py``,
``pointwise_losses.py``, ``fused.py`` (``Linear``, ``SoftmaxCrossEntropy``), ``conv.py``,
``pooling.py``, ``dropout.py``, ``normalization.py``, ``embedding.py``, ``special.py``,
``attention.py``. This module only gathers them under the names a network uses (``relu``
is defined here: PyTorch's ``inplace=`` argument on top of ``minitorch.relu``).
"""

from minitorch.functions import unary
from minitorch.functions.activations import (
    elu,
    hardtanh,
    leaky_relu,
    log_softmax,
    logsigmoid,
    mish,
    relu6,
    silu,
    softmax,
    softmin,
    softplus,
    threshold,
)
from minitorch.functions.attention import scaled_dot_product_attention
from minitorch.functions.conv import conv2d
from minitorch.functions.dropout import dropout
from minitorch.functions.embedding import embedding
from minitorch.functions.fused import linear
from minitorch.functions.losses import cross_entropy, mse_loss, nll_loss
from minitorch.functions.maxpool import max_pool2d
from minitorch.functions.normalization import batch_norm, layer_norm
from minitorch.functions.pointwise_losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    huber_loss,
    l1_loss,
    smooth_l1_loss,
)
from minitorch.functions.pooling import adaptive_avg_pool2d, avg_pool2d
from minitorch.functions.special import gelu
from minitorch.functions.unary import sigmoid, tanh
from minitorch.nn.one_hot import one_hot
from minitorch.tensor import Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(input, 0) per element, as ``torch.nn.functional.relu``.

    ``inplace=True`` is accepted for PyTorch's signature; the result is always a new tensor
    with the same values (the input is left as it is).
    """
    return unary.relu(input)


__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "elu",
    "hardtanh",
    "leaky_relu",
    "logsigmoid",
    "mish",
    "relu6",
    "silu",
    "softmin",
    "softplus",
    "threshold",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv2d",
    "cross_entropy",
    "dropout",
    "embedding",
    "gelu",
    "huber_loss",
    "l1_loss",
    "layer_norm",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "relu",
    "scaled_dot_product_attention",
    "sigmoid",
    "smooth_l1_loss",
    "softmax",
    "tanh",
]
