"""``torch.nn.modules.activation``'s path to the activation modules and MultiheadAttention."""

from minitorch.nn.activations import (
    ELU,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    Mish,
    ReLU6,
    SiLU,
    Softmin,
    Softplus,
    Threshold,
)
from minitorch.nn.attention import MultiheadAttention
from minitorch.nn.layers import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from minitorch.nn.sequence import GELU

__all__ = [
    "ELU",
    "GELU",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "MultiheadAttention",
    "ReLU",
    "ReLU6",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmin",
    "Softplus",
    "Tanh",
    "Threshold",
]
