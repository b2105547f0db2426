"""The hand-written CUDA kernels of MiniTorch's GPU fast paths, as CuPy ``ElementwiseKernel`` sources.

CuPy already runs every NumPy-style expression on the GPU, so why write kernels? Because
each CuPy expression is one kernel launch and one temporary array. ``grad * (out > 0)``
is two launches and a bool temporary; ReLU's backward written as one kernel is a single
pass over memory. Fusing several ops (bias + ReLU, or the whole softmax-cross-entropy
backward) saves more: every element is read once, written once.

A CuPy ``ElementwiseKernel`` is the easiest way in: you write the body for ONE element in
CUDA C, CuPy writes the loop, the indexing and the broadcasting around it. ``T`` is a
type placeholder, so one kernel serves float32 and float64. ``i`` is the element's flat
index when the body needs it.

Each kernel here has a NumPy twin (``reference_*``): the GPU tests check one against the
other. Kernels are built on first use (the CUDA backend builds and keeps them, and CuPy
compiles each with NVRTC at its first call, once per dtype), so importing this module never
needs CuPy or a GPU. The ops never call them: ``elementwise.py``, ``cross_entropy.py`` (and
``kernels/optimizers/fused.py``) register them as the fast kernels of ``ReLU``, ``BiasReLU``,
``SoftmaxCrossEntropy`` (and the SGD and Adam steps) on ``"cuda"``, and
``use_fast_kernels(False)`` switches them off to compare with plain CuPy.
"""

import numpy as np

from minitorch import backends
from minitorch.cuda.backend import CUDA

# Each kernel: (input parameters, output parameters, body for one element, name).
# "x <= 0 ? 0 : x" rather than "x > 0 ? x : 0": a NaN stays NaN, as np.maximum and PyTorch keep it.
RELU_FORWARD = ("T x", "T y", "y = x <= (T)0 ? (T)0 : x", "minitorch_relu_forward")
# Backward reads the forward *output*: y != 0 exactly where x > 0 (or x is NaN, whose
# gradient passes through as on the CPU and in PyTorch), and y is saved anyway.
RELU_BACKWARD = ("T y, T dy", "T dx", "dx = y != (T)0 ? dy : (T)0", "minitorch_relu_backward")
# Fused bias + ReLU: x (N, F) and b (F,) broadcast like NumPy; one read of x, one write.
BIAS_RELU_FORWARD = (
    "T x, T b",
    "T y",
    "T v = x + b; y = v <= (T)0 ? (T)0 : v",
    "minitorch_bias_relu_forward",
)
# Softmax-cross-entropy backward for logits (N, C), integer targets (N, 1) and the
# gradient scale (g / N for a mean): dlogits = (softmax - onehot(target)) * scale.
# ``i % C`` is the column of element i in a C-contiguous (N, C) output.
# float16 arithmetic in CuPy's headers gives a float, so ``(T)(...)`` casts the product back:
# without it the two branches of ``?:`` (T and float) are ambiguous and float16 fails to compile.
SOFTMAX_XENT_BACKWARD = (
    "T p, int64 target, T scale, int64 C, int64 ignore",
    "T dx",
    "dx = target == ignore ? (T)0 : (T)((p - ((i % C) == target ? (T)1 : (T)0)) * scale)",
    "minitorch_softmax_xent_backward",
)

# Softmax-cross-entropy forward, one thread per ROW of logits (N, C): the row's max, its
# softmax (written to p, kept for backward) and the loss -log p[target], in one launch
# instead of about ten (max, subtract, exp, sum, log, gather, divide...). ``raw`` arrays
# are indexed by hand (flattened, row-major); ``i`` is the row. A thread loops over C
# columns, so the op uses this kernel only for moderate C (``SOFTMAX_XENT_MAX_CLASSES``).
# A row whose target is ``ignore`` (PyTorch's ignore_index, -100 by default) gets loss 0
# and count 0 (the mean divides by the sum of the counts) and, in backward, no gradient.
# Any other target outside [0, C) sets ``bad`` and reads column 0 instead of stray memory;
# the op reports ``bad.any()`` at the next sync point (the device-side range check).
# ``A`` is the type the row's max, exponentials and sum are computed in: the type of T + T,
# which is T for float32 and float64 but float for float16 (its arithmetic gives a float), so
# float16 logits are summed in float, as PyTorch does, and cast back to T once, when stored.
SOFTMAX_XENT_FORWARD = (
    "raw T x, int64 target, int64 C, int64 ignore",
    "raw T p, T loss, T count, bool bad",
    """
    typedef decltype((T)0 + (T)0) A;
    const ptrdiff_t row = i * C;
    A top = x[row];
    for (ptrdiff_t j = 1; j < C; ++j) top = max(top, (A)x[row + j]);
    A total = 0;
    for (ptrdiff_t j = 0; j < C; ++j) { A e = exp((A)x[row + j] - top); p[row + j] = (T)e; total += e; }
    for (ptrdiff_t j = 0; j < C; ++j) p[row + j] = (T)((A)p[row + j] / total);
    const bool skip = target == ignore;
    bad = !skip && (target < 0 || target >= C);
    const ptrdiff_t t = (skip || bad) ? 0 : target;
    loss = skip ? (T)0 : (T)(log(total) - ((A)x[row + t] - top));
    count = skip ? (T)0 : (T)1;
    """,
    "minitorch_softmax_xent_forward",
)
SOFTMAX_XENT_MAX_CLASSES = 1024  # beyond this a thread per row is slower than CuPy's reductions

# One SGD-with-momentum update, in place, for one element of a parameter (PyTorch's
# formula without dampening or Nesterov): five CuPy launches become one. Outputs may be
# read as well as written: ``p`` and ``buf`` are updated where they are.
SGD_MOMENTUM_STEP = (
    "T g, T lr, T momentum, T weight_decay",
    "T p, T buf",
    "T d = g + weight_decay * p; buf = momentum * buf + d; p = p - lr * buf",
    "minitorch_sgd_momentum_step",
)

# One Adam/AdamW update, in place, for one element (PyTorch's formula; see optim/adam.py).
# About a dozen CuPy launches and four temporaries per parameter become one pass. The
# host computes what is the same for every element: ``step_size = lr / (1 - beta1**t)``,
# ``bias2 = sqrt(1 - beta2**t)`` and ``decay`` (AdamW's 1 - lr * weight_decay, else 1);
# ``weight_decay`` here is Adam's coupled one (0 for AdamW).
ADAM_STEP = (
    "T g, T step_size, T beta1, T beta2, T eps, T weight_decay, T decay, T bias2",
    "T p, T m, T v",
    "p = p * decay; T d = g + weight_decay * p; "
    "m = beta1 * m + ((T)1 - beta1) * d; v = beta2 * v + ((T)1 - beta2) * (d * d); "
    "p = p - step_size * (m / (sqrt(v) / bias2 + eps))",
    "minitorch_adam_step",
)


def get_kernel(spec):
    """The ``cupy.ElementwiseKernel`` for ``spec``, built once by the CUDA backend (compiled on first call)."""
    return CUDA.elementwise_kernel(spec)


# ---------------------------------------------------------------------- GPU entry points
def relu_forward(x):
    """max(x, 0) on a CuPy array in one kernel."""
    return get_kernel(RELU_FORWARD)(x)


def relu_backward(y, dy):
    """dy where the ReLU output y > 0, else 0, in one kernel."""
    return get_kernel(RELU_BACKWARD)(y, dy)


def bias_relu_forward(x, b):
    """max(x + b, 0) with b broadcast over the rows of x, in one kernel."""
    return get_kernel(BIAS_RELU_FORWARD)(x, b)


def softmax_xent_backward(probs, target, scale, ignore_index=-100):
    """(probs - onehot(target)) * scale for probs (N, C) and int64 target (N,), one kernel;
    0 in the rows whose target is ``ignore_index``."""
    n, c = probs.shape
    probs = backends.module_of(probs).ascontiguousarray(probs)  # ``i % C`` needs row-major
    scale = probs.dtype.type(scale) if not backends.is_backend_array(scale) else scale.astype(probs.dtype)
    target = target.astype("int64", copy=False).reshape(n, 1)
    return get_kernel(SOFTMAX_XENT_BACKWARD)(probs, target, scale, c, ignore_index)


def softmax_xent_forward(logits, target, ignore_index=-100):
    """``(losses, probs, counts, bad)`` for logits (N, C) and integer target (N,), one kernel.

    ``losses`` per row (-log softmax[target], 0 where the target is ``ignore_index``),
    ``counts`` 1 per row that counts (0 where ignored), ``bad`` True where a target is out
    of range and not ignored (for the device-side check).
    """
    xp = backends.module_of(logits)
    n, c = logits.shape
    x = xp.ascontiguousarray(logits).reshape(-1)  # a flat row-major view: the kernel indexes rows by hand
    probs = xp.empty(n * c, dtype=logits.dtype)
    losses = xp.empty(n, dtype=logits.dtype)
    counts = xp.empty(n, dtype=logits.dtype)
    bad = xp.empty(n, dtype=bool)
    target = target.astype("int64", copy=False)
    get_kernel(SOFTMAX_XENT_FORWARD)(x, target, c, ignore_index, probs, losses, counts, bad)
    return losses, probs.reshape(n, c), counts, bad


def sgd_momentum_step(p, buf, g, lr, momentum, weight_decay):
    """``buf = momentum * buf + (g + weight_decay * p)``; ``p -= lr * buf``; in place, one kernel."""
    scalar = p.dtype.type
    get_kernel(SGD_MOMENTUM_STEP)(g, scalar(lr), scalar(momentum), scalar(weight_decay), p, buf)


def adam_step(p, m, v, g, step_size, beta1, beta2, eps, weight_decay, decay, bias2):
    """Adam's moments and parameter update in place, one kernel (arguments: see ``ADAM_STEP``)."""
    scalar = p.dtype.type
    numbers = (step_size, beta1, beta2, eps, weight_decay, decay, bias2)
    get_kernel(ADAM_STEP)(g, *(scalar(x) for x in numbers), p, m, v)


# ---------------------------------------------------------------------- NumPy twins
def reference_relu_forward(x):
    """What ``relu_forward`` computes, in NumPy."""
    return np.where(x <= 0, x.dtype.type(0), x)


def reference_relu_backward(y, dy):
    """What ``relu_backward`` computes, in NumPy."""
    return np.where(y != 0, dy, dy.dtype.type(0))


def reference_bias_relu_forward(x, b):
    """What ``bias_relu_forward`` computes, in NumPy."""
    v = x + b
    return np.where(v <= 0, v.dtype.type(0), v)


def reference_softmax_xent_backward(probs, target, scale, ignore_index=-100):
    """What ``softmax_xent_backward`` computes, in NumPy."""
    skip = target == ignore_index
    onehot = np.zeros_like(probs)
    onehot[np.arange(probs.shape[0]), np.where(skip, 0, target)] = 1
    return np.where(skip[:, None], 0, (probs - onehot) * scale).astype(probs.dtype)


def reference_softmax_xent_forward(logits, target, ignore_index=-100):
    """What ``softmax_xent_forward`` computes, in NumPy: ``(losses, probs, counts, bad)``."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    skip = target == ignore_index
    bad = ~skip & ((target < 0) | (target >= logits.shape[1]))
    safe = np.where(skip | bad, 0, target)
    losses = np.where(skip, 0, np.log(total[:, 0]) - shifted[np.arange(len(logits)), safe])
    counts = np.where(skip, 0, 1)
    dtype = logits.dtype
    return losses.astype(dtype), (exp / total).astype(dtype), counts.astype(dtype), bad


def reference_sgd_momentum_step(p, buf, g, lr, momentum, weight_decay):
    """What ``sgd_momentum_step`` does, in NumPy (in place)."""
    buf *= momentum
    buf += g + weight_decay * p
    p -= lr * buf


def reference_adam_step(p, m, v, g, step_size, beta1, beta2, eps, weight_decay, decay, bias2):
    """What ``adam_step`` does, in NumPy (in place)."""
    p *= decay
    d = g + weight_decay * p
    m[...] = beta1 * m + (1 - beta1) * d
    v[...] = beta2 * v + (1 - beta2) * (d * d)
    p -= step_size * (m / (np.sqrt(v) / bias2 + eps))
