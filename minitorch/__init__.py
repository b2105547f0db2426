"""MiniTorch: PyTorch's core rebuilt on NumPy, small enough to read in an afternoon.

    import minitorch
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    x.grad            # tensor([2., 4., 6.])

Layers, bottom up (docs/ARCHITECTURE.md draws them): ``backends`` and ``cuda`` (the
device seam), ``tensor`` (the Tensor), ``autograd`` (Function, engine, graph walk,
gradcheck), ``functions`` (every op, forward and backward side by side), then ``nn``,
``optim`` and ``data`` on top.
"""

import numpy as _np

# PyTorch computes log(0) = -inf and 0/0 = nan silently; so does MiniTorch rather than
# printing NumPy warnings into every notebook. ``autograd.detect_anomaly()`` finds them.
_np.seterr(divide="ignore", invalid="ignore", over="ignore")

# The device seam first (the GPU backend registers itself), then the Tensor: it loads the
# ops, which load autograd, once Tensor is defined.
from minitorch import backends, cuda  # noqa: E402, I001
from minitorch.tensor import Tensor  # noqa: E402
from minitorch import autograd  # noqa: E402
from minitorch.autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402
from minitorch.dtypes import bool_, float16, float32, float64, int64  # noqa: E402
from minitorch.random import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: E402
from minitorch.random import default_generator as _default_generator  # noqa: E402
from minitorch.backends.device import device  # noqa: E402
from minitorch.size import Size  # noqa: E402
from minitorch import return_types  # noqa: E402  (what max(dim), min(dim), sort and topk return)
from minitorch.printing import set_printoptions  # noqa: E402
from minitorch.defaults import get_default_device, get_default_dtype, set_default_device, set_default_dtype  # noqa: E402
from minitorch import accelerator  # noqa: E402
from minitorch.factories import (  # noqa: E402
    arange,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from minitorch.functions import (  # noqa: E402
    abs,
    add,
    amax,
    amin,
    argmax,
    argmin,
    broadcast_shape,
    cat,
    clamp,
    cos,
    div,
    exp,
    expand,
    flatten,
    floor_divide,
    log,
    log1p,
    logsumexp,
    addmm,
    bmm,
    matmul,
    mm,
    mv,
    max,
    maximum,
    mean,
    min,
    minimum,
    mul,
    neg,
    permute,
    pow,
    relu,
    remainder,
    reshape,
    sigmoid,
    sin,
    sqrt,
    squeeze,
    stack,
    std,
    sub,
    sum,
    tanh,
    transpose,
    unsqueeze,
    var,
    where,
)

from minitorch.functions import chunk, erf, masked_fill, split, tril, triu  # noqa: E402  (sequence models)
from minitorch.functions import bernoulli, multinomial  # noqa: E402  (sampling)
from minitorch.functions import (  # noqa: E402  (selection, ordering and shape ops)
    argsort,
    broadcast_tensors,
    broadcast_to,
    concat,
    concatenate,
    count_nonzero,
    cumprod,
    cumsum,
    diag,
    diagonal,
    dot,
    flip,
    gather,
    hstack,
    index_select,
    masked_select,
    moveaxis,
    movedim,
    narrow,
    nonzero,
    norm,
    outer,
    prod,
    repeat_interleave,
    roll,
    scatter,
    select,
    sort,
    tile,
    trace,
    topk,
    unbind,
    unique,
    vstack,
)
from minitorch.functions import (  # noqa: E402  (more elementwise ops)
    allclose,
    atan2,
    ceil,
    clamp_max,
    clamp_min,
    clip,
    eq,
    equal,
    exp2,
    expm1,
    floor,
    fmod,
    ge,
    gt,
    is_floating_point,
    is_tensor,
    isclose,
    isfinite,
    isinf,
    isnan,
    le,
    lerp,
    log2,
    log10,
    log_softmax,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
    numel,
    reciprocal,
    round,
    rsqrt,
    sign,
    softmax,
    square,
    tan,
    true_divide,
    trunc,
)

# nn, optim and data sit on top of the Tensor API (imported after it).
from minitorch import data, datasets, nn, optim  # noqa: E402
# The fast kernels attach themselves to the ops they speed up (ops and optimizers never import them).
from minitorch import kernels  # noqa: E402
from minitorch import utils  # noqa: E402  (torch.utils.data's path to the same data tools)
from minitorch.serialization import load, save  # noqa: E402
from minitorch import amp  # noqa: E402
from minitorch.amp import autocast  # noqa: E402
from minitorch.amp.autocast_mode import is_autocast_enabled  # noqa: E402  (torch.is_autocast_enabled)
from minitorch import onnx  # noqa: E402  (torch.onnx: the path; export refuses)
from minitorch.compat import legacy  # noqa: E402
from minitorch.compat.legacy import BoolTensor, DoubleTensor, FloatTensor, HalfTensor, LongTensor  # noqa: E402
from minitorch.compat.unsupported_dtypes import bfloat16  # noqa: E402  (a name only: using it raises)
from minitorch.amp import cuda_amp as _cuda_amp  # noqa: E402
import sys as _sys  # noqa: E402
from minitorch import jit  # noqa: E402  (the tracer and replay behind compile)
from minitorch.jit import compile, explain  # noqa: E402, A004  (torch.compile, torch._dynamo.explain)

# PyTorch's older paths, entered from here because the lower layers they belong to cannot
# import the upper ones: ``torch.autograd.Variable`` and ``torch.cuda.amp`` (GradScaler).
autograd.Variable = legacy.Variable  # type: ignore[attr-defined]
cuda.amp = _sys.modules["minitorch.cuda.amp"] = _cuda_amp  # type: ignore[attr-defined]

default_generator = _default_generator()  # as torch.default_generator: the Generator itself
bool = bool_  # ``minitorch.bool`` as ``torch.bool`` (shadows the builtin only in here)
long = int64
double = float64
half = float16
float = float32  # noqa: A001

__version__ = "0.1.0"
