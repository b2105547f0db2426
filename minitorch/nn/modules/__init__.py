"""``minitorch.nn.modules``: PyTorch's file layout of the layers, for scripts that import from it.

``from torch.nn.modules.loss import _Loss`` or ``import torch.nn.modules.transformer`` in a
PyTorch program finds the same classes as ``minitorch.nn`` here: each file re-exports the
layers PyTorch keeps in the file of that name. The layers themselves live in ``minitorch/nn/``.
"""

from minitorch.nn.modules import (
    activation,
    batchnorm,
    container,
    conv,
    dropout,
    flatten,
    linear,
    loss,
    module,
    normalization,
    pooling,
    rnn,
    sparse,
    transformer,
    utils,
)
from minitorch.nn.modules.module import Module

__all__ = [
    "Module",
    "activation",
    "batchnorm",
    "container",
    "conv",
    "dropout",
    "flatten",
    "linear",
    "loss",
    "module",
    "normalization",
    "pooling",
    "rnn",
    "sparse",
    "transformer",
    "utils",
]
