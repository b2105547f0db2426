"""Lesson 09's conv2d backward in three parts (bias, weight, input), each checked on its own.

    check_function("conv2d grad_b", conv_grad_b, conv_parts.reference_grad_b,
                   conv_parts.cases("b"), compare=conv_parts.compare_grad_b, describe=conv_parts.describe("b"))

The parts receive what an im2col backward has at hand: ``g``, the upstream gradient as a
``(N*Ho*Wo, O)`` matrix (rows in im2col's order: sample, output row, output column);
``cols``, the ``(N*Ho*Wo, C*kh*kw)`` window matrix; ``w2``, the ``(O, C*kh*kw)`` flattened
weight. The references are MiniTorch's autograd of the forward (not a copy of the
solution), and each ``compare_*`` names the typical mistake of its part.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

import minitorch
from minitorch.functions.conv import windows
from minitorch.hints import Shape
from minitorch.tensor import Tensor
from widgets.check.function_checker import same
from widgets.check.mistakes import constant_factor, factor_hint
from widgets.i18n import _

# (x shape, weight shape, stride, padding): overlapping windows hanging over the border,
# several channels and samples, and stride 1
Pair = tuple[int, int]
# (x shape, w shape, stride, padding) of each case
CONFIGS: list[tuple[Shape, Shape, Pair, Pair]] = [
    ((1, 1, 5, 5), (2, 1, 3, 3), (2, 2), (1, 1)),
    ((2, 3, 6, 6), (4, 3, 3, 3), (2, 2), (1, 1)),
    ((2, 2, 5, 4), (3, 2, 3, 2), (1, 1), (1, 0)),
]


def _out_hw(x_shape: Shape, w_shape: Shape, stride: Pair, padding: Pair) -> Pair:
    (_, _, h, w), (_, _, kh, kw) = x_shape, w_shape
    return (h + 2 * padding[0] - kh) // stride[0] + 1, (w + 2 * padding[1] - kw) // stride[1] + 1


def _case(config: tuple[Shape, Shape, Pair, Pair], seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x_shape, w_shape, stride, padding = config
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(x_shape)
    weight = rng.standard_normal(w_shape)
    o, c, kh, kw = w_shape
    ho, wo = _out_hw(x_shape, w_shape, stride, padding)
    padded = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    win = windows(padded, kh, kw, *stride)
    cols = np.ascontiguousarray(win.transpose(0, 2, 3, 1, 4, 5).reshape(-1, c * kh * kw))
    g = rng.standard_normal((x_shape[0] * ho * wo, o))
    return g, cols, weight.reshape(o, -1).copy()


def cases(part: str) -> list[tuple[Any, ...]]:
    """Argument tuples: "b" (g,), "w" (g, cols, w_shape) or "x" (g, w2, x_shape, w_shape, stride, padding)."""
    out = []
    for seed, config in enumerate(CONFIGS):
        g, cols, w2 = _case(config, seed)
        x_shape, w_shape, stride, padding = config
        out.append({"b": (g,), "w": (g, cols, w_shape), "x": (g, w2, x_shape, w_shape, stride, padding)}[part])
    return out


def describe(part: str) -> Callable[[tuple[Any, ...]], str]:
    """Names a case in the check's table."""
    def name(args: tuple[Any, ...]) -> str:
        if part == "x":
            x_shape, w_shape, stride, padding = args[2:]
            return _("x {x_shape}, w {w_shape}, stride {stride}, padding {padding}", x_shape=x_shape,
                     w_shape=w_shape, stride=stride, padding=padding)
        return ", ".join(f"{n} {a.shape}" for n, a in zip(("g", "cols"), args[:2]))
    return name


def _grads_of(y: Tensor, g_matrix: np.ndarray, *leaves: Tensor) -> list[np.ndarray]:
    """Backpropagate ``g`` (as a (rows, O) matrix) through ``y`` and return the leaves' gradients."""
    if y.ndim == 4:  # (N, O, Ho, Wo): im2col's rows are (n, i, j)
        n, o, ho, wo = y.shape
        g_matrix = g_matrix.reshape(n, ho, wo, o).transpose(0, 3, 1, 2)
    (y * minitorch.tensor(g_matrix)).sum().backward()
    return [leaf.grad.numpy() for leaf in leaves if leaf.grad is not None]


def reference_grad_b(g: np.ndarray) -> np.ndarray:
    """The bias gradient, from MiniTorch's autograd."""
    bias = minitorch.zeros(g.shape[1], dtype=minitorch.float64, requires_grad=True)
    return _grads_of(minitorch.zeros(g.shape, dtype=minitorch.float64) + bias, g, bias)[0]


def reference_grad_w(g: np.ndarray, cols: np.ndarray, w_shape: Shape) -> np.ndarray:
    """The weight gradient, from MiniTorch's autograd."""
    weight = minitorch.zeros(*w_shape, dtype=minitorch.float64, requires_grad=True)
    return _grads_of(minitorch.tensor(cols) @ weight.reshape(w_shape[0], -1).T, g, weight)[0]


def reference_grad_x(g: np.ndarray, w2: np.ndarray, x_shape: Shape, w_shape: Shape, stride: Pair,
                     padding: Pair) -> np.ndarray:
    """The input gradient, from MiniTorch's autograd."""
    x = minitorch.zeros(*x_shape, dtype=minitorch.float64, requires_grad=True)
    y = minitorch.nn.functional.conv2d(x, minitorch.tensor(w2.reshape(w_shape)), None, stride, padding)
    return _grads_of(y, g, x)[0]


def compare_grad_b(got: Any, expected: np.ndarray) -> tuple[bool, str]:
    """``compare`` for the bias part: names a sum over the wrong axis or a mean."""
    if isinstance(got, np.ndarray) and got.shape != expected.shape:
        if got.ndim == 2 and got.shape[-1] == expected.shape[0]:
            return False, _("shape {got}, expected {expected}: every sample and every output "
                            "position used the same bias, so sum g over the batch and positions (its rows, "
                            "axis=0): one number per filter", got=got.shape, expected=expected.shape)
        if got.ndim == 1:
            return False, _("shape {got}, expected {expected}: you summed over the filters "
                            "(axis=1); sum over the rows (axis=0) instead", got=got.shape, expected=expected.shape)
    c = constant_factor(got, expected) if isinstance(got, np.ndarray) else None
    if c and c < 1 and np.isclose(1 / c, round(1 / c), rtol=1e-6) and round(1 / c) > 1:
        return False, _("off by exactly 1/{n}: you took the mean over the {n} rows; "
                        "the bias gradient is their sum", n=round(1 / c))
    return same(got, expected)


def compare_grad_w(got: Any, expected: np.ndarray) -> tuple[bool, str]:
    """``compare`` for the weight part."""
    o = expected.shape[0]
    flat = expected.reshape(o, -1)
    if isinstance(got, np.ndarray) and got.size == expected.size:
        if got.shape == flat.T.shape and np.allclose(got, flat.T):
            return False, _("transposed: cols.T @ g is (C*kh*kw, O); the weight gradient is g.T @ cols, "
                            "(O, C*kh*kw), then reshape it to the weight's shape")
        if got.shape == flat.shape and np.allclose(got, flat):
            return False, _("right values, shape {got}: reshape it to the weight's shape {expected}", got=got.shape,
                            expected=expected.shape)
        if not np.allclose(got.reshape(-1), expected.reshape(-1)) and np.allclose(got.reshape(-1), flat.T.reshape(-1)):
            return False, _("transposed: cols.T @ g is (C*kh*kw, O); the weight gradient is g.T @ cols, "
                            "(O, C*kh*kw), before the reshape")
    return same(got, expected)


def _shift(got: np.ndarray, expected: np.ndarray) -> Pair | None:
    """(di, dj) when ``got`` is ``expected`` moved by that many pixels (the overlap agrees), else None."""
    h, w = expected.shape[-2:]
    for di in range(-2, 3):
        for dj in range(-2, 3):
            if (di, dj) == (0, 0) or abs(di) >= h or abs(dj) >= w:
                continue
            a = got[..., max(di, 0):h + min(di, 0), max(dj, 0):w + min(dj, 0)]
            b = expected[..., max(-di, 0):h + min(-di, 0), max(-dj, 0):w + min(-dj, 0)]
            if np.any(np.abs(b) > 1e-9) and np.allclose(a, b):
                return di, dj
    return None


def compare_grad_x(got: Any, expected: np.ndarray) -> tuple[bool, str]:
    """``compare`` for the input part: names a gradient still padded or moved by wrong offsets."""
    ok, hint = same(got, expected)
    if ok or not isinstance(got, np.ndarray) or got.ndim != 4 or got.shape[:2] != expected.shape[:2]:
        return ok, hint
    (h, w), (gh, gw) = expected.shape[-2:], got.shape[-2:]
    if (gh, gw) != (h, w):
        if gh >= h and gw >= w:
            return False, _("shape {got}, expected {expected}: still padded; cut the padding off "
                            "(grad_padded[:, :, ph:ph + h, pw:pw + w])", got=got.shape, expected=expected.shape)
        return ok, hint
    if not np.any(got) and np.any(expected):
        return False, _("your gradient is all zeros: no window gradient reached the grid. grad_cols = g @ w2 "
                        "carries them; col2im adds them onto grad_padded, and that (cut to h x w) is the answer")
    if factor_hint(got, expected):
        return ok, hint
    moved = _shift(got, expected)
    if moved:
        return False, _("your gradient is the right one moved by {moved} pixels: wrong window offsets when "
                        "cutting the padding off; keep rows ph:ph + h and columns pw:pw + w", moved=moved)
    return False, _("{hint}. The window gradients land on the wrong pixels (wrong window offsets): grad_cols's "
                    "rows are (sample, out row, out col) and its columns (channel, kernel row, kernel col), as "
                    "im2col laid them out; reshape to (N, Ho, Wo, C, kh, kw), then transpose to "
                    "(N, C, Ho, Wo, kh, kw) for col2im", hint=hint)


def pool_mistakes(k: int, got: np.ndarray, inputs: list[Any], grad_output: np.ndarray, kernel: Pair = (2, 2),
                  stride: Pair = (2, 2)) -> str | None:
    """``mistakes`` for max-pool backward: the gradient spread over the window instead of sent to its max."""
    if k != 0:
        return None
    x = inputs[0]
    (kh, kw), (sh, sw) = kernel, stride
    n, c, ho, wo = grad_output.shape
    spread = np.zeros_like(x)
    for a in range(kh):
        for b in range(kw):
            spread[:, :, a:a + sh * ho:sh, b:b + sw * wo:sw] += grad_output
    if got.shape == grad_output.shape + (kh, kw):
        return _("shape {got}: these are the window gradients (N, C, Ho, Wo, kh, kw); add them onto the "
                 "input's grid with col2im(grad_windows, ctx.x_shape, sh, sw)", got=got.shape)
    if got.shape != x.shape:
        return None
    if np.allclose(got, spread):
        return _("every element of a window got the window's gradient: only its max (the winner saved in forward) "
                 "gets it; mask with the one-hot of winner")
    if np.allclose(got, spread / (kh * kw)):
        return _("the gradient is spread evenly over the window, as in average pooling: max pooling sends it all "
                 "to the max")
    return None


def pool_mistakes_for(kernel: Pair, stride: Pair) -> Callable[..., str | None]:
    """``pool_mistakes`` for one kernel size and stride (the check's ``args``)."""
    return lambda k, got, inputs, grad_output: pool_mistakes(k, got, inputs, grad_output, kernel, stride)


_PART_OF_INPUT = {0: ("conv_grad_x", "conv2d grad_x"), 1: ("conv_grad_w", "conv2d grad_w"),
                  2: ("conv_grad_b", "conv2d grad_b")}  # the function and the check's name, as the notebook has them


def conv_mistakes(k: int, got: np.ndarray, inputs: list[Any], grad_output: np.ndarray, stride: Pair = (1, 1),
                  padding: Pair = (0, 0)) -> str | None:
    """``mistakes`` for the assembled conv2d backward: which of the three parts gave the wrong gradient."""
    if k not in _PART_OF_INPUT:
        return None
    fn, check = _PART_OF_INPUT[k]
    x, w, b = (minitorch.tensor(a, requires_grad=True) for a in inputs[:3])
    minitorch.nn.functional.conv2d(x, w, b, stride, padding).backward(minitorch.tensor(grad_output))
    right = [x, w, b][k].grad
    factor = factor_hint(got, right.numpy()) if right is not None and got.shape == right.shape else None
    detail = _(" ({factor})", factor=factor) if factor else ""
    if k == 0:
        return _("the input gradient is wrong{detail}: it comes from your {fn}; the '{check}' check above names "
                 "the mistake", detail=detail, fn=fn, check=check)
    if k == 1:
        return _("the weight gradient is wrong{detail}: it comes from your {fn}; the '{check}' check above names "
                 "the mistake", detail=detail, fn=fn, check=check)
    return _("the bias gradient is wrong{detail}: it comes from your {fn}; the '{check}' check above names "
             "the mistake", detail=detail, fn=fn, check=check)


def conv_mistakes_for(stride: Pair, padding: Pair) -> Callable[..., str | None]:
    """``conv_mistakes`` for one stride and padding (the check's ``args``)."""
    return lambda k, got, inputs, grad_output: conv_mistakes(k, got, inputs, grad_output, stride, padding)
