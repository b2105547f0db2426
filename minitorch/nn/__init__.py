"""``minitorch.nn``: modules (layers with parameters), ``functional``, ``init`` and ``parallel`` (DDP)."""

# ``modules``: PyTorch's file paths (torch.nn.modules.loss ...), re-exporting the layers below.
from minitorch.nn import functional, init, modules, parallel, utils
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
from minitorch.nn.containers import ModuleList, Sequential
from minitorch.nn.layers import (
    BatchNorm1d,
    BatchNorm2d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    Identity,
    Linear,
    LogSoftmax,
    MaxPool2d,
    MSELoss,
    NLLLoss,
    ReLU,
    Sigmoid,
    Softmax,
    Tanh,
)
from minitorch.nn.losses import BCELoss, BCEWithLogitsLoss, HuberLoss, L1Loss, SmoothL1Loss
from minitorch.nn.module import Module, Parameter
from minitorch.nn.more_containers import ModuleDict, ParameterList, Unflatten
from minitorch.nn.pooling import AdaptiveAvgPool2d, AvgPool2d
from minitorch.nn.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell
from minitorch.nn.sequence import GELU, Embedding, LayerNorm
from minitorch.nn.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
