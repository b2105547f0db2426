"""The built-in differentiable ops, each a ``Function`` with forward and backward together.

One module per family, and the Tensor's methods for each family are in the module of the
same name under ``minitorch/tensor/``:

- ``arithmetic`` (+ - * / ** ..., and the rules every binary op follows: ``promote`` for
  dtypes, ``unbroadcast`` for gradients), ``binary_math`` (atan2, fmod, lerp),
  ``conversion`` (Cast, ToDevice, Clone), ``unary`` (exp, log, relu, reciprocal ...),
  ``rounding`` (round, floor ...), ``elementwise_logic`` (comparisons, isnan, logical_and,
  allclose ...), ``clamping``;
- ``reductions`` (sum, mean, max ...), ``cumulative`` (cumsum, cumprod, prod), ``ordering``
  (sort, topk, flip, roll), ``shape`` (reshape, permute, expand, broadcast_to, cat ...),
  ``rearranging`` (narrow, repeat, diag, chunk, split ...), ``selection`` (gather, scatter,
  unique ...), ``indexing`` and ``index_put`` (``t[i]``, ``t[i] = v``), ``masking``,
  ``linalg`` (matmul, mm, bmm ..., norm);
- the ops networks are built of: ``activations`` (softmax, leaky_relu, elu ...),
  ``losses``, ``pointwise_losses``, ``class_losses``, ``fused`` (Linear,
  SoftmaxCrossEntropy, BiasReLU), ``conv``, ``pooling``, ``dropout``, ``normalization``,
  ``attention``, ``recurrent``, ``embedding``, ``special`` (erf, gelu), ``sampling``
  (bernoulli, multinomial: no gradient, so plain functions);
- ``autocast_policy`` (which ops run in float16 under autocast) and ``out`` (``out=``).

The lower-case functions are the user-facing forms (``minitorch.exp(x)``, ``F.conv2d``);
Tensor methods are the same functions.

Importing this package imports every op module, so every built-in op is in
``autograd.REGISTRY`` as soon as ``minitorch`` is loaded.
"""

# The ops networks are built of (nn.functional gives them their PyTorch names).
from minitorch.factories import random_values_like

# array_api: NumPy's names for these ops, for backward formulas run with create_graph=True
# (it imports the op modules it maps names onto).
from minitorch.functions import array_api  # noqa: F401
from minitorch.functions.activations import (
    ELU,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    SiLU,
    Softmax,
    Softplus,
    Threshold,
    log_softmax,
    softmax,
)
from minitorch.functions.arithmetic import (
    Add,
    Div,
    Mul,
    Neg,
    Pow,
    Sub,
    add,
    as_operand,
    div,
    floor_divide,
    mul,
    neg,
    pow,
    promote,
    remainder,
    sub,
    unbroadcast,
)
from minitorch.functions.attention import ScaledDotProductAttention, scaled_dot_product_attention
from minitorch.functions.binary_math import Atan2, Fmod, Lerp, atan2, fmod, lerp, true_divide
from minitorch.functions.clamping import ClampTensor, clamp, clamp_max, clamp_min, clip
from minitorch.functions.conv import Conv2d, conv2d
from minitorch.functions.conversion import Cast, Clone, ToDevice, cast
from minitorch.functions.cumulative import CumProd, CumSum, Prod, cumprod, cumsum, prod
from minitorch.functions.dropout import Dropout, dropout
from minitorch.functions.elementwise_logic import (
    Maximum,
    Minimum,
    Where,
    allclose,
    eq,
    equal,
    ge,
    gt,
    is_floating_point,
    is_tensor,
    isclose,
    isfinite,
    isinf,
    isnan,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    maximum,
    minimum,
    ne,
    numel,
    where,
)
from minitorch.functions.embedding import Embedding, embedding
from minitorch.functions.fused import BiasReLU, Linear, SoftmaxCrossEntropy, bias_relu, linear, softmax_cross_entropy
from minitorch.functions.index_put import IndexPut, index_put, index_put_index
from minitorch.functions.indexing import Index, getitem
from minitorch.functions.linalg import MatMul, Norm2, NormP, addmm, bmm, matmul, mm, mv, norm
from minitorch.functions.losses import NLLLoss, cross_entropy, mse_loss, nll_loss
from minitorch.functions.masking import MaskedFill, Triangle, masked_fill, tril, triu
from minitorch.functions.maxpool import MaxPool2d, max_pool2d
from minitorch.functions.normalization import BatchNorm, LayerNorm, batch_norm, layer_norm
from minitorch.functions.ordering import Flip, Gather, Roll, argsort, flip, roll, sort, topk
from minitorch.functions.pointwise_losses import (
    BinaryCrossEntropy,
    BinaryCrossEntropyWithLogits,
    HuberLoss,
    SmoothL1Loss,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    huber_loss,
    l1_loss,
    smooth_l1_loss,
)
from minitorch.functions.pooling import AdaptiveAvgPool2d, AvgPool2d, adaptive_avg_pool2d, avg_pool2d
from minitorch.functions.rearranging import (
    Diag,
    Repeat,
    RepeatInterleave,
    chunk,
    concat,
    concatenate,
    diag,
    diagonal,
    dot,
    hstack,
    moveaxis,
    movedim,
    narrow,
    outer,
    repeat,
    repeat_interleave,
    select,
    split,
    tile,
    trace,
    unbind,
    vstack,
)
from minitorch.functions.recurrent import GRULayer, LSTMLayer, RNNLayer, gru_layer, lstm_layer, rnn_layer
from minitorch.functions.reductions import (
    Amax,
    Amin,
    LogSumExp,
    MaxAlongDim,
    Mean,
    Std,
    Sum,
    Var,
    amax,
    amin,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    min,
    std,
    sum,
    var,
)
from minitorch.functions.rounding import Ceil, Floor, Round, Sign, Trunc, ceil, floor, round, sign, trunc
from minitorch.functions.sampling import bernoulli, multinomial
from minitorch.functions.selection import (
    IndexSelect,
    MaskedSelect,
    Scatter,
    count_nonzero,
    gather,
    index_select,
    masked_select,
    nonzero,
    scatter,
    unique,
)
from minitorch.functions.shape import (
    Cat,
    Expand,
    Permute,
    Reshape,
    Stack,
    Transpose,
    View,
    broadcast_tensors,
    broadcast_to,
    cat,
    expand,
    expand_as,
    flatten,
    permute,
    reshape,
    squeeze,
    stack,
    transpose,
    unsqueeze,
    view,
)
from minitorch.functions.special import Erf, Gelu, erf, gelu
from minitorch.functions.unary import (
    Abs,
    Clamp,
    Cos,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log1p,
    Log2,
    Log10,
    Reciprocal,
    ReLU,
    Rsqrt,
    Sigmoid,
    Sin,
    Sqrt,
    Tan,
    Tanh,
    abs,
    cos,
    exp,
    exp2,
    expm1,
    log,
    log1p,
    log2,
    log10,
    reciprocal,
    relu,
    rsqrt,
    sigmoid,
    sin,
    sqrt,
    square,
    tan,
    tanh,
)
from minitorch.return_types import SortResult, TopKResult
from minitorch.size import broadcast_shape
