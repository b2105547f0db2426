"""``minitorch.nn.functional`` (imported as ``F``): the stateless building blocks of networks.

Activations, softmax, losses, ``linear``, ``dropout``, ``conv2d``, ``max_pool2d`` and
``batch_norm``. Some are compositions of existing ops; the ones that sit on every training
step are fused into a single ``Function`` with a hand-written backward, because one fused
op is both faster (fewer graph nodes, fewer temporaries) and a lesson in itself:

- ``LogSoftmax``: a numerically stable forward (subtract the row maximum) and the short
  backward ``g - softmax * g.sum(dim)``.
- ``Linear``: ``x @ W.T + b`` in one node.
- ``Conv2d``: im2col (a strided *view* of every kernel window, then one matrix product) and
  col2im for the backward.
- ``MaxPool2d``: the same windows, an ``argmax`` and a scatter of the gradient.

Every op works on ``ctx.xp`` (NumPy or CuPy), so it runs on either device.
"""

import numpy as np

from minitorch import backend
from minitorch.autograd.engine import is_debug_enabled
from minitorch.autograd.function import Function
from minitorch.dtypes import DEFAULT_FLOAT
from minitorch.errors import MiniTorchError
from minitorch.factories import default_generator
from minitorch.functions import unary as _unary
from minitorch.tensor import Tensor, _cast

# ---------------------------------------------------------------------- activations


def relu(x):
    """max(x, 0), elementwise."""
    return _unary.ReLU.apply(x)


def sigmoid(x):
    """1 / (1 + exp(-x)), elementwise."""
    return _unary.sigmoid(x)


def tanh(x):
    """Hyperbolic tangent, elementwise."""
    return _unary.tanh(x)


# ---------------------------------------------------------------------- softmax family


def _norm_dim(op, dim, ndim):
    if dim is None:
        raise MiniTorchError(f"{op}: pass the dimension to normalise over, e.g. {op}(x, dim=-1)")
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise MiniTorchError(f"{op}: dim {dim} is out of range for a {ndim}-d tensor")
    return dim % max(ndim, 1)


class Softmax(Function):
    """exp(x) / sum(exp(x)) along ``dim``.

    Backward: with s = softmax(x), ds_i/dx_j = s_i (delta_ij - s_j), so
    grad_x = s * (g - sum(g * s)).
    """

    @staticmethod
    def forward(ctx, x, dim):
        xp = ctx.xp
        # Subtracting the maximum changes nothing mathematically and keeps exp() <= 1.
        e = xp.exp(x - x.max(axis=dim, keepdims=True))
        out = e / e.sum(axis=dim, keepdims=True)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (s,) = ctx.saved_tensors
        return s * (grad - (grad * s).sum(axis=ctx.dim, keepdims=True)), None


class LogSoftmax(Function):
    """x - logsumexp(x) along ``dim``, stable for logits of any size.

    Backward: d/dx_j of (x_i - log sum_k exp x_k) is delta_ij - softmax_j, so
    grad_x = g - softmax * sum(g).
    """

    @staticmethod
    def forward(ctx, x, dim):
        xp = ctx.xp
        shifted = x - x.max(axis=dim, keepdims=True)
        out = shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad - ctx.xp.exp(out) * grad.sum(axis=ctx.dim, keepdims=True), None


def _float(x, op):
    """Softmax and friends compute in floating point: integer tensors become float32."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}")
    return x if x.data.dtype.kind == "f" else _cast(x, DEFAULT_FLOAT)


def softmax(x, dim=None):
    """Probabilities along ``dim``: exp(x) normalised to sum to 1."""
    x = _float(x, "softmax")
    return Softmax.apply(x, _norm_dim("softmax", dim, x.ndim))


def log_softmax(x, dim=None):
    """log(softmax(x, dim)), computed without overflow (logits of +-1000 are fine)."""
    x = _float(x, "log_softmax")
    return LogSoftmax.apply(x, _norm_dim("log_softmax", dim, x.ndim))


# ---------------------------------------------------------------------- losses


def _check_reduction(op, reduction):
    if reduction not in ("mean", "sum", "none"):
        raise MiniTorchError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


class NLLLoss(Function):
    """-logp[n, target[n]], averaged or summed over n.

    ``logp`` is (N, C) and ``target`` (N,) holds class indices. Backward puts ``-g`` at
    each picked entry and zero everywhere else.
    """

    @staticmethod
    def forward(ctx, logp, target, reduction):
        xp = ctx.xp
        rows = xp.arange(logp.shape[0])
        picked = -logp[rows, target]
        ctx.rows, ctx.target, ctx.reduction = rows, target, reduction
        ctx.shape = logp.shape
        if reduction == "mean":
            return picked.mean()
        if reduction == "sum":
            return picked.sum()
        return picked

    @staticmethod
    def backward(ctx, grad):
        xp = ctx.xp
        n = ctx.shape[0]
        grad_logp = xp.zeros(ctx.shape, dtype=grad.dtype)
        if ctx.reduction == "mean":
            value = -grad / n
        else:  # "sum" sends the same scalar to every row, "none" one value per row
            value = -grad
        grad_logp[ctx.rows, ctx.target] = value
        return grad_logp, None, None


def nll_loss(log_probs, target, reduction="mean"):
    """Negative log-likelihood of integer class ``target`` under ``log_probs`` (N, C[, ...])."""
    _check_reduction("nll_loss", reduction)
    if not isinstance(target, Tensor):
        target = Tensor(target)
    if target.data.dtype.kind not in "iu":
        raise MiniTorchError(
            f"nll_loss/cross_entropy: target must hold integer class indices (int64), got {target.dtype}; "
            "convert with target.long()"
        )
    if log_probs.ndim == 1:  # one sample: (C,) with a scalar target
        log_probs, target = log_probs.unsqueeze(0), target.reshape(1)
        out = nll_loss(log_probs, target, reduction)
        return out.reshape(()) if reduction == "none" else out
    if log_probs.ndim > 2:
        # (N, C, d1, ...): move the class dim last and treat every position as a sample.
        c = log_probs.shape[1]
        if target.shape != (log_probs.shape[0],) + tuple(log_probs.shape[2:]):
            raise MiniTorchError(
                f"nll_loss: target shape {tuple(target.shape)} does not match input shape "
                f"{tuple(log_probs.shape)} (expected {(log_probs.shape[0],) + tuple(log_probs.shape[2:])})"
            )
        dims = (0,) + tuple(range(2, log_probs.ndim)) + (1,)
        flat = log_probs.permute(*dims).reshape(-1, c)
        out = nll_loss(flat, target.reshape(-1), reduction)
        return out.reshape(target.shape) if reduction == "none" else out
    n, c = log_probs.shape
    if target.shape != (n,):
        raise MiniTorchError(
            f"nll_loss: input has shape {(n, c)} so target must have shape ({n},), got {tuple(target.shape)}"
        )
    _check_target_range(target.data, c)
    return NLLLoss.apply(log_probs, target.data, reduction)


def _check_target_range(t, c):
    """Class indices must lie in [0, C); NumPy would silently wrap a negative one."""
    # Checking the range reads two numbers back from a GPU (a sync every step), so on cuda
    # it runs only under minitorch.autograd.set_debug(True), as PyTorch checks on device.
    check = backend.device_of(t) == backend.CPU or is_debug_enabled()
    # Seen as unsigned, a negative index becomes huge: one max() checks both ends.
    unsigned = t.view(t.dtype.str.replace("i", "u")) if t.dtype.kind == "i" else t
    if check and t.size and int(unsigned.max()) >= c:
        raise MiniTorchError(
            f"nll_loss: target values must be in [0, {c - 1}] for {c} classes, got {int(t.min())}..{int(t.max())}"
        )


def cross_entropy(logits, target, reduction="mean"):
    """Softmax cross-entropy of integer class ``target``: nll_loss(log_softmax(logits, 1)).

    For the usual (N, C) logits it runs as ONE fused op (``cuda_ops.SoftmaxCrossEntropy``)
    whose backward is the famous ``(softmax - onehot(target)) / N``: one graph node instead
    of two, and no recomputed exponentials (on a GPU that backward is a single kernel).
    Other shapes use the two-op composition.
    """
    _check_reduction("cross_entropy", reduction)
    if _is_class_batch(logits, target):
        from minitorch.cuda_ops import softmax_cross_entropy

        _check_target_range(target.data, logits.shape[1])
        return softmax_cross_entropy(logits, target, reduction)
    dim = 0 if logits.ndim == 1 else 1
    return nll_loss(log_softmax(logits, dim), target, reduction)


def _is_class_batch(logits, target):
    """(N, C) float logits and (N,) integer targets on the same device."""
    return (
        isinstance(target, Tensor)
        and logits.data.ndim == 2
        and logits.data.dtype.kind == "f"
        and target.data.shape == (logits.data.shape[0],)
        and target.data.dtype.kind in "iu"
        and type(logits.data) is type(target.data)
    )


def mse_loss(input, target, reduction="mean"):
    """Mean (or sum) of squared differences."""
    _check_reduction("mse_loss", reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise MiniTorchError(
            f"mse_loss: input shape {tuple(input.shape)} and target shape {tuple(target.shape)} differ; "
            "reshape one so they match (broadcasting here is almost always a bug)"
        )
    diff = input - target
    sq = diff * diff
    if reduction == "mean":
        return sq.mean()
    if reduction == "sum":
        return sq.sum()
    return sq


# ---------------------------------------------------------------------- linear


class Linear(Function):
    """y = x @ W.T + b with W of shape (out, in), as PyTorch stores it.

    Backward: grad_x = g @ W, grad_W = g.T @ x (over all leading dims), grad_b = sum(g).
    """

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        out = x @ weight.T
        if bias is not None:
            out += bias  # ``out`` is a fresh array: adding in place saves a temporary
        return out

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        grad_x = grad_w = grad_b = None
        if need_x:
            grad_x = grad @ weight
        if need_w or need_b:
            g2 = grad.reshape(-1, grad.shape[-1])
            if need_w:
                grad_w = g2.T @ x.reshape(-1, x.shape[-1])
            if need_b:
                grad_b = g2.sum(axis=0)
        return grad_x, grad_w, grad_b


def linear(x, weight, bias=None):
    """``x @ weight.T + bias``: a fully connected layer with weight of shape (out, in)."""
    if x.shape[-1:] != weight.shape[-1:] or weight.ndim != 2:
        raise MiniTorchError(
            f"linear: input of shape {tuple(x.shape)} needs a weight of shape (out, {x.shape[-1] if x.ndim else '?'}), "
            f"got {tuple(weight.shape)}"
        )
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise MiniTorchError(f"linear: bias must have shape ({weight.shape[0]},), got {tuple(bias.shape)}")
    if x.data.dtype != weight.data.dtype:
        raise MiniTorchError(
            f"linear: input dtype {x.dtype} and weight dtype {weight.dtype} differ; convert with "
            "x.float() (or model.double())"
        )
    return Linear.apply(x, weight, bias)


# ---------------------------------------------------------------------- dropout


class Dropout(Function):
    """Zero each element with probability p and scale the rest by 1/(1-p).

    The scaled mask is saved: backward multiplies the gradient by the same mask.
    """

    @staticmethod
    def forward(ctx, x, mask):
        ctx.save_for_backward(mask)
        return x * mask

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask, None


def _uniform_like(x):
    """Uniform [0, 1) numbers shaped like the array ``x``, on its device."""
    if backend.device_of(x) == backend.CPU:
        return default_generator().random(x.shape, dtype=np.float32 if x.dtype == np.float32 else np.float64)
    return backend.module_of(x).random.random(x.shape).astype(x.dtype)  # CuPy's own generator


def dropout(x, p=0.5, training=True):
    """During training, zero elements with probability ``p`` and scale the rest by 1/(1-p)."""
    if not 0 <= p <= 1:
        raise MiniTorchError(f"dropout: probability p must be between 0 and 1, got {p}")
    if not training or p == 0:
        return x
    if p == 1:
        return x * 0.0
    keep = _uniform_like(x.data) >= p
    mask = keep.astype(x.data.dtype) * x.data.dtype.type(1 / (1 - p))
    return Dropout.apply(x, mask)


# ---------------------------------------------------------------------- conv2d / pooling


def _pair(value, name):
    if isinstance(value, int):
        return value, value
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return int(value[0]), int(value[1])
    raise MiniTorchError(f"{name} must be an int or a pair of ints, got {value!r}")


def windows(x, kh, kw, sh, sw):
    """A strided view (no copy) of every (kh, kw) window of ``x`` (N, C, H, W).

    Shape (N, C, Ho, Wo, kh, kw): element [n, c, i, j, a, b] is x[n, c, i*sh + a, j*sw + b].
    Moving one output position is a jump of sh rows; moving inside the window is one row.
    """
    n, c, h, w = x.shape
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    s_n, s_c, s_h, s_w = x.strides
    as_strided = backend.module_of(x).lib.stride_tricks.as_strided
    return as_strided(x, (n, c, ho, wo, kh, kw), (s_n, s_c, s_h * sh, s_w * sw, s_h, s_w))


def col2im(grad_windows, shape, sh, sw):
    """The adjoint of ``windows``: add each window's gradient back onto the (N, C, H, W) grid.

    Overlapping windows share pixels, so their contributions add up. The loop runs over the
    kh * kw offsets inside a window (9 for a 3x3 kernel), never over pixels or samples: each
    step adds one strided slice of the whole batch at once.
    """
    xp = backend.module_of(grad_windows)
    n, c, ho, wo, kh, kw = grad_windows.shape
    out = xp.zeros(shape, dtype=grad_windows.dtype)
    for a in range(kh):
        for b in range(kw):
            out[:, :, a : a + sh * ho : sh, b : b + sw * wo : sw] += grad_windows[:, :, :, :, a, b]
    return out


def windows_last(x, kh, kw, sh, sw):
    """Like ``windows`` for a channels-last array (N, H, W, C): a (N, Ho, Wo, kh, kw, C) view.

    With channels last, one window row (kw pixels x C channels) is contiguous in memory, so
    copying the windows into a matrix moves long runs instead of 3 numbers at a time.
    """
    n, h, w, c = x.shape
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    s_n, s_h, s_w, s_c = x.strides
    as_strided = backend.module_of(x).lib.stride_tricks.as_strided
    return as_strided(x, (n, ho, wo, kh, kw, c), (s_n, s_h * sh, s_w * sw, s_h, s_w, s_c))


class Conv2d(Function):
    """2-D cross-correlation (what deep learning calls convolution), by im2col.

    Forward: copy the input channels-last into a zero-padded frame, take the strided view
    of all windows, copy it into a matrix ``cols`` with one row per output pixel
    (N*Ho*Wo, kh*kw*C), and multiply by the weight reshaped to (O, kh*kw*C): the whole
    convolution is one matrix product. Backward: grad_W = g.T @ cols, grad_cols = g @ W,
    and col2im adds each window's gradient back onto the image.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding):
        xp = ctx.xp
        (sh, sw), (ph, pw) = stride, padding
        n, c, h, w = x.shape
        o, _, kh, kw = weight.shape
        framed = xp.zeros((n, h + 2 * ph, w + 2 * pw, c), dtype=x.dtype)  # channels last, padded
        framed[:, ph : ph + h, pw : pw + w, :] = x.transpose(0, 2, 3, 1)
        win = windows_last(framed, kh, kw, sh, sw)  # (N, Ho, Wo, kh, kw, C), a view
        ho, wo = win.shape[1:3]
        cols = win.reshape(n * ho * wo, kh * kw * c)  # the im2col copy
        w2 = weight.transpose(0, 2, 3, 1).reshape(o, kh * kw * c)  # rows in (kh, kw, C) order too
        out = cols @ w2.T  # (N*Ho*Wo, O)
        if bias is not None:
            out += bias
        ctx.save_for_backward(cols, w2)
        ctx.meta = (framed.shape, n, c, h, w, ho, wo, kh, kw, sh, sw, ph, pw, o)
        return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2)  # NCHW view of the result

    @staticmethod
    def backward(ctx, grad):
        cols, w2 = ctx.saved_tensors
        framed_shape, n, c, h, w, ho, wo, kh, kw, sh, sw, ph, pw, o = ctx.meta
        xp = ctx.xp
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        g2 = grad.transpose(0, 2, 3, 1).reshape(n * ho * wo, o)
        grad_x = grad_w = grad_b = None
        if need_w:
            grad_w = xp.ascontiguousarray((g2.T @ cols).reshape(o, kh, kw, c).transpose(0, 3, 1, 2))
        if need_b:
            grad_b = g2.sum(axis=0)
        if need_x:
            grad_cols = (g2 @ w2).reshape(n, ho, wo, kh, kw, c)
            # col2im: each kernel offset (a, b) adds one strided slab; 9 steps for 3x3.
            framed = xp.zeros(framed_shape, dtype=grad.dtype)
            for a in range(kh):
                for b in range(kw):
                    framed[:, a : a + sh * ho : sh, b : b + sw * wo : sw, :] += grad_cols[:, :, :, a, b, :]
            grad_x = xp.ascontiguousarray(framed[:, ph : ph + h, pw : pw + w, :].transpose(0, 3, 1, 2))
        return grad_x, grad_w, grad_b, None, None


def conv2d(x, weight, bias=None, stride=1, padding=0):
    """2-D convolution of ``x`` (N, C, H, W) with ``weight`` (O, C, kh, kw), as PyTorch's."""
    stride, padding = _pair(stride, "conv2d: stride"), _pair(padding, "conv2d: padding")
    if x.ndim != 4 or weight.ndim != 4:
        raise MiniTorchError(
            f"conv2d: expected input (N, C, H, W) and weight (O, C, kh, kw), got shapes "
            f"{tuple(x.shape)} and {tuple(weight.shape)}"
        )
    if x.shape[1] != weight.shape[1]:
        raise MiniTorchError(
            f"conv2d: input has {x.shape[1]} channels (shape {tuple(x.shape)}) but the weight "
            f"{tuple(weight.shape)} expects {weight.shape[1]}"
        )
    h, w = x.shape[2] + 2 * padding[0], x.shape[3] + 2 * padding[1]
    if h < weight.shape[2] or w < weight.shape[3]:
        raise MiniTorchError(
            f"conv2d: kernel {tuple(weight.shape[2:])} is larger than the padded input ({h}, {w})"
        )
    if stride[0] < 1 or stride[1] < 1 or padding[0] < 0 or padding[1] < 0:
        raise MiniTorchError(f"conv2d: stride must be >= 1 and padding >= 0, got {stride} and {padding}")
    if x.data.dtype != weight.data.dtype:
        raise MiniTorchError(f"conv2d: input dtype {x.dtype} and weight dtype {weight.dtype} differ")
    return Conv2d.apply(x, weight, bias, stride, padding)


class MaxPool2d(Function):
    """The maximum of each (kh, kw) window.

    Forward remembers which element of each window won (``argmax``; the first one on a
    tie, as PyTorch). Backward sends each output's gradient to that element only: a
    one-hot mask times the gradient, put back onto the image (adding where windows overlap).
    """

    @staticmethod
    def forward(ctx, x, kernel, stride):
        (kh, kw), (sh, sw) = kernel, stride
        win = windows(x, kh, kw, sh, sw)
        n, c, ho, wo = win.shape[:4]
        flat = win.reshape(n, c, ho, wo, kh * kw)  # a copy: windows are not contiguous
        ctx.meta = (x.shape, kh, kw, sh, sw)
        ctx.save_for_backward(flat.argmax(axis=-1))
        return flat.max(axis=-1)

    @staticmethod
    def backward(ctx, grad):
        (idx,) = ctx.saved_tensors
        shape, kh, kw, sh, sw = ctx.meta
        xp = ctx.xp
        # one_hot[..., k] is True where window element k was the maximum.
        one_hot = idx[..., None] == xp.arange(kh * kw)
        grad_win = (one_hot * grad[..., None]).reshape(grad.shape + (kh, kw))
        n, c, ho, wo = grad.shape
        if (sh, sw) == (kh, kw):
            # Windows tile the image without overlap: interleave them back in one reshape.
            tiled = grad_win.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, ho * kh, wo * kw)
            if tiled.shape == tuple(shape):
                return tiled, None, None
            out = xp.zeros(shape, dtype=grad.dtype)  # rows/columns no window covered get 0
            out[:, :, : ho * kh, : wo * kw] = tiled
            return out, None, None
        return col2im(grad_win, shape, sh, sw), None, None


def max_pool2d(x, kernel_size, stride=None):
    """Maximum over each window of ``x`` (N, C, H, W); ``stride`` defaults to the kernel size."""
    kernel = _pair(kernel_size, "max_pool2d: kernel_size")
    stride = kernel if stride is None else _pair(stride, "max_pool2d: stride")
    if x.ndim != 4:
        raise MiniTorchError(f"max_pool2d: expected input (N, C, H, W), got shape {tuple(x.shape)}")
    if x.shape[2] < kernel[0] or x.shape[3] < kernel[1]:
        raise MiniTorchError(f"max_pool2d: kernel {kernel} is larger than the input {tuple(x.shape[2:])}")
    return MaxPool2d.apply(x, kernel, stride)


# ---------------------------------------------------------------------- batch norm


class BatchNorm(Function):
    """y = (x - mean) * invstd * weight + bias, with per-channel ``mean``/``invstd`` given.

    In training the statistics are those of the batch, so they depend on x too; the
    backward then includes their derivative:
    grad_x = invstd / M * (M * gh - sum(gh) - xhat * sum(gh * xhat)), gh = g * weight.
    In evaluation they are running averages (constants): grad_x = g * weight * invstd.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, mean, invstd, axes, batch_stats):
        xhat = (x - mean) * invstd
        out = xhat if weight is None else xhat * weight
        if bias is not None:
            out = out + bias
        ctx.axes, ctx.batch_stats = axes, batch_stats
        ctx.has_weight = weight is not None
        ctx.save_for_backward(xhat, weight, invstd)
        return out

    @staticmethod
    def backward(ctx, grad):
        xhat, weight, invstd = ctx.saved_tensors
        axes = ctx.axes
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        # weight and bias arrive shaped (1, C, 1, ...), so their gradients keep those dims.
        grad_w = (grad * xhat).sum(axis=axes, keepdims=True) if need_w else None
        grad_b = grad.sum(axis=axes, keepdims=True) if need_b else None
        grad_x = None
        if need_x:
            gh = grad if weight is None else grad * weight
            if ctx.batch_stats:
                m = grad.size // invstd.size
                sum_gh = gh.sum(axis=axes, keepdims=True)
                sum_ghx = (gh * xhat).sum(axis=axes, keepdims=True)
                grad_x = (invstd / m) * (m * gh - sum_gh - xhat * sum_ghx)
            else:
                grad_x = gh * invstd
        return grad_x, grad_w, grad_b, None, None, None, None


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) of ``x`` (N, C) or (N, C, H, W), as ``torch.nn.functional.batch_norm``.

    In training the batch statistics are used and the running ones (if given) are updated
    in place: running = (1 - momentum) * running + momentum * batch, with the unbiased
    batch variance. In evaluation the running statistics are used.
    """
    if x.ndim < 2:
        raise MiniTorchError(f"batch_norm: expected at least (N, C), got shape {tuple(x.shape)}")
    xp = backend.module_of(x.data)
    c = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    stat_shape = (1, c) + (1,) * (x.ndim - 2)
    if training:
        m = x.data.size // c
        if m <= 1:
            raise MiniTorchError(
                f"batch_norm: expected more than 1 value per channel when training, got input of shape {tuple(x.shape)}"
            )
        mean = x.data.mean(axis=axes, keepdims=True)
        var = ((x.data - mean) ** 2).mean(axis=axes, keepdims=True)
        if running_mean is not None:
            running_mean.data *= 1 - momentum
            running_mean.data += momentum * mean.reshape(c)
        if running_var is not None:
            running_var.data *= 1 - momentum
            running_var.data += momentum * var.reshape(c) * (m / (m - 1))
    else:
        if running_mean is None or running_var is None:
            raise MiniTorchError("batch_norm: evaluation mode needs running_mean and running_var")
        mean = running_mean.data.reshape(stat_shape)
        var = running_var.data.reshape(stat_shape)
    invstd = (1 / xp.sqrt(var + eps)).astype(x.data.dtype, copy=False)
    mean = mean.astype(x.data.dtype, copy=False)
    w = weight.reshape(stat_shape) if weight is not None else None
    b = bias.reshape(stat_shape) if bias is not None else None
    return BatchNorm.apply(x, w, b, mean, invstd, axes, training)


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
