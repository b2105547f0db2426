"""Lesson 13's checks: layer norm backward, the causal mask, attention forward and backward, with hints naming the mistake.

    check_backward(MyLayerNorm, ..., mistakes=layer_norm_mistakes)
    check_function("causal mask", causal_mask, reference_mask, cases=MASK_CASES, compare=mask_hint)
    check_function("attention forward", attention_runs(attention), attention_runs(reference),
                   cases=attention_cases(rng), compare=attention_hint, describe=describe_attention)
    check_backward(MyAttention, ..., mistakes=attention_backward_mistakes)

A wrong answer is recognised by computing, from the same inputs, the wrong versions learners
write (no 1/sqrt(d), a mask off by the diagonal, the softmax over the wrong axis, its
backward without the row sum...) and saying which one the answer equals.
"""

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from widgets import style
from widgets.check.function_checker import same
from widgets.check.outcome import Outcome, keep_inputs
from widgets.i18n import _

Array = np.ndarray


# ---------------------------------------------------------------------- NumPy versions, right and wrong
def _softmax(scores: Array, axis: int = -1, subtract_max: bool = True) -> Array:
    with np.errstate(all="ignore"):  # the wrong versions overflow or divide 0 by 0 on purpose
        e = np.exp(scores - scores.max(axis=axis, keepdims=True)) if subtract_max else np.exp(scores)
        return e / e.sum(axis=axis, keepdims=True)


def _causal(T: int, k: int = 0) -> Array:
    return np.tril(np.ones((T, T), dtype=bool), k)


def _attention(q: Array, k: Array, v: Array, scale: float | None = None, mask: Array | None = None,
               axis: int = -1, subtract_max: bool = True, mask_after: bool = False, renormalise: bool = False,
               mask_by_zero: bool = False) -> Array:
    """softmax(q k^T * scale, masked) v, or one of its wrong versions."""
    T, d = q.shape[-2], q.shape[-1]
    scale = 1 / math.sqrt(d) if scale is None else scale
    mask = _causal(T) if mask is None else mask
    scores = q @ np.swapaxes(k, -1, -2) * scale
    if mask_by_zero:
        return _softmax(scores * mask, axis) @ v
    if mask_after:
        p = _softmax(scores, axis) * mask
        if renormalise:
            with np.errstate(all="ignore"):  # 0 / 0 where every visible score underflowed
                p = p / p.sum(axis=axis, keepdims=True)
        return p @ v
    return _softmax(np.where(mask, scores, -np.inf), axis, subtract_max) @ v


# ---------------------------------------------------------------------- exercise 2: the causal mask
MASK_CASES = [(1,), (4,), (7,)]


def reference_mask(T: int) -> Array:
    """True where query t may look at key s (s <= t): a (T, T) bool array."""
    return _causal(T)


def mask_hint(got: Any, expected: Array) -> tuple[bool, str]:
    """``compare`` for the causal mask: a bool NumPy array, True on and below the diagonal."""
    if got is None:
        return False, _("returned None: did you forget `return`?")
    if hasattr(got, "__next__"):
        return False, _("returned a generator: return a NumPy array, e.g. np.tril(np.ones((T, T), dtype=bool))")
    if isinstance(got, (list, tuple)):
        return False, _("returned a {type}: return a NumPy array of bools (np.tril(np.ones((T, T), "
                        "dtype=bool))), which np.where and ~ understand", type=type(got).__name__)
    if not isinstance(got, np.ndarray):
        return False, _("return a NumPy array of bools, got {type}", type=type(got).__name__)
    if got.shape != expected.shape:
        return False, _("shape {got}, expected {expected}: a (T, T) mask", got=style.fmt_shape(got.shape),
                        expected=style.fmt_shape(expected.shape))
    if got.dtype.kind == "f" and np.isin(got, (0.0, -np.inf)).all() and np.array_equal(got == 0, expected):
        return False, _("an additive mask (0 where allowed, -inf elsewhere): this exercise wants the bool mask, "
                        "True where query t may look at key s (np.tril(np.ones((T, T), dtype=bool))); attention "
                        "puts the -inf in itself, np.where(mask, scores, -np.inf)")
    if got.dtype != np.bool_:
        if np.array_equal(got != 0, expected):
            return False, _("right places, but the dtype is {dtype}: a mask is bool (dtype=bool). "
                            "With a number mask ~mask is not 'not', and masked indexing picks by position",
                            dtype=got.dtype)
        got = got != 0
    T = expected.shape[-1]
    for wrong, hint in ((np.triu(np.ones((T, T), dtype=bool)), _("True above the diagonal: that is the future "
                         "(s > t); np.tril keeps s <= t")),
                        (_causal(T, -1), _("the diagonal is False: a query may look at its own position (s <= t, "
                         "not s < t); without it the first row masks everything and its softmax is NaN")),
                        (_causal(T, 1), _("one step into the future is True (s <= t + 1): np.tril with k=0")),
                        (~expected, _("inverted: True must mean 'may look', on and below the diagonal")),
                        (np.ones((T, T), dtype=bool), _("every position is True: nothing is masked"))):
        if np.array_equal(got, wrong) and not np.array_equal(wrong, expected):
            return False, hint
    return same(got, expected)


# ---------------------------------------------------------------------- exercise 3: attention forward
def attention_runs(fn: Callable[..., Any]) -> Callable[..., Outcome]:
    """``run(q, k, v)`` -> ``Outcome``: ``fn``'s result with the inputs kept for ``attention_hint``."""
    return keep_inputs(fn)


def attention_cases(rng: np.random.Generator) -> list[tuple[Array, Array, Array]]:
    """Three cases: one head, batched heads, and scores too large for exp without subtracting the max."""
    def qkv(*shape: int, size: float = 1.0) -> tuple[Array, Array, Array]:
        return tuple(size * rng.standard_normal(shape) for _ in range(3))  # type: ignore[return-value]
    return [qkv(3, 2), qkv(2, 2, 5, 4), qkv(4, 4, size=30.0)]


def describe_attention(args: tuple[Any, ...]) -> str:
    """The table's name for a case: the shape of q, and whether its scores are large."""
    q = args[0]
    large = float(np.abs(q).max()) > 20
    if large:
        return _("q, k, v of shape {shape} (large scores)", shape=style.fmt_shape(q.shape))
    return _("q, k, v of shape {shape}", shape=style.fmt_shape(q.shape))


def _forward_variants(q: Array, k: Array, v: Array) -> Iterator[tuple[Array, str]]:
    d, T = q.shape[-1], q.shape[-2]
    yield _attention(q, k, v, scale=1.0), _("the scores are not divided by sqrt(d): q @ k^T / math.sqrt(d)")
    yield _attention(q, k, v, scale=math.sqrt(d)), _("you multiplied the scores by sqrt(d): divide by it")
    yield _attention(q, k, v, scale=1 / d), _("you divided the scores by d: divide by sqrt(d)")
    if T != d:
        yield _attention(q, k, v, scale=1 / math.sqrt(T)), _(
            "you divided the scores by sqrt(T), the number of positions: d is the size of each vector, q.shape[-1]")
    yield _attention(q, k, v, mask_by_zero=True), _(
        "the scores were masked by multiplying by 0: exp(0) = 1, so the future still gets weight. Put -inf "
        "where the mask is False (np.where(mask, scores, -np.inf))")
    yield _attention(q, k, v, mask=np.ones((T, T), dtype=bool)), _("no causal mask: every query sees the future too")
    yield _attention(q, k, v, mask=np.triu(np.ones((T, T), dtype=bool))), _(
        "the mask keeps the future (np.triu): keep s <= t (np.tril)")
    yield _attention(q, k, v, axis=-2), _("the softmax runs over the queries (axis -2): each row (axis -1) must sum "
                                          "to 1")
    yield _attention(q, k, v, mask_after=True), _(
        "the mask is applied after the softmax: the rows no longer sum to 1. Put -inf in the scores before it")


def attention_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for attention: which wrong version (scale, mask, softmax axis, no max) the output is."""
    value, want = got.value, expected.value
    ok, hint = same(value, want)
    if ok or not isinstance(value, np.ndarray) or value.shape != want.shape:
        if isinstance(value, np.ndarray) and value.shape[-1:] == want.shape[-2:-1] and value.shape != want.shape:
            hint = _("{hint}: these are the attention weights; multiply them by v", hint=hint)
        return ok, hint
    q, k, v = expected.args
    if not np.isfinite(value).all() and np.isfinite(want).all():
        if np.allclose(value, _attention(q, k, v, mask_after=True, renormalise=True), equal_nan=True):
            return False, _("NaN with large scores: masking after the softmax and renormalising divides 0 by 0 "
                            "where every score a query may see underflowed to 0. Mask the scores before the "
                            "softmax instead: np.where(mask, scores, -np.inf)")
        if np.allclose(value, _attention(q, k, v, mask=_causal(q.shape[-2], -1)), equal_nan=True):
            return False, _("NaN in row 0: the mask hides the diagonal too, so query 0 sees nothing; s <= t "
                            "keeps the diagonal")
        return False, _("inf/NaN in your output with large scores: np.exp overflowed. Subtract each row's max "
                        "before np.exp (softmax(x) = softmax(x - max))")
    for wrong, text in _forward_variants(q, k, v):
        if np.allclose(value, wrong, atol=1e-6, rtol=1e-5):
            return False, text
    return False, hint


# ---------------------------------------------------------------------- exercise 4: attention backward
def _attention_grads(q: Array, k: Array, v: Array, grad_output: Array, scale: float | None = None,
                     row_sum: bool = True, transpose_p: bool = True, sum_axis: int = -1,
                     transpose_s: bool = True) -> tuple[Array, Array, Array]:
    """(grad_q, grad_k, grad_v) of causal attention, or of a wrong backward."""
    d, T = q.shape[-1], q.shape[-2]
    true_scale = 1 / math.sqrt(d)
    scale = true_scale if scale is None else scale
    scores = np.where(_causal(T), q @ np.swapaxes(k, -1, -2) * true_scale, -np.inf)
    p = _softmax(scores)
    grad_v = (np.swapaxes(p, -1, -2) if transpose_p else p) @ grad_output
    grad_p = grad_output @ np.swapaxes(v, -1, -2)
    grad_s = p * (grad_p - (grad_p * p).sum(axis=sum_axis, keepdims=True)) if row_sum else p * grad_p
    grad_k = (np.swapaxes(grad_s, -1, -2) if transpose_s else grad_s) @ q * scale
    return grad_s @ k * scale, grad_k, grad_v


def attention_backward_mistakes(k: int, got: Array, inputs: list[Any], grad_output: Array) -> str | None:
    """``mistakes`` for ``check_backward``: which wrong attention backward gave ``got`` for input ``k``."""
    q, key, v = inputs
    d = q.shape[-1]
    variants = [
        (dict(scale=math.sqrt(d)), _("you multiplied by sqrt(d): the scores were divided by sqrt(d), so the "
                                     "gradients of q and k are too (scale = 1 / math.sqrt(d))")),
        (dict(scale=1.0), _("the 1/sqrt(d) of the scores is missing from the gradients of q and k")),
        (dict(scale=1 / d), _("you divided by d: the scale is 1 / math.sqrt(d)")),
        (dict(row_sum=False), _("the softmax backward lacks the row sum: grad_s = p * (grad_p - (grad_p * p)"
                                ".sum(axis=-1, keepdims=True))")),
        (dict(transpose_p=False), _("grad_v = p^T @ grad_output: swap the last two axes of p")),
        (dict(sum_axis=-2), _("the softmax backward's row sum runs over axis -2 (the queries): each row of p sums "
                              "to 1 over the keys, so (grad_p * p).sum(axis=-1, keepdims=True)")),
        (dict(transpose_s=False), _("grad_k = grad_s^T @ q: swap the last two axes of grad_s (scores = q @ k^T, "
                                    "so k's gradient comes from grad_s transposed)")),
    ]
    for options, text in variants:
        wrong = _attention_grads(q, key, v, grad_output, **options)[k]
        if wrong.shape == got.shape and np.allclose(got, wrong, atol=1e-6, rtol=1e-5):
            return text
    return None


# ---------------------------------------------------------------------- exercise 1: layer norm backward
def _layer_norm_grad_x(x: Array, w: Array, eps: float, weight: bool = True, mean_term: bool = True,
                       variance_term: bool = True) -> Callable[[Array], Array]:
    mean = x.mean(axis=-1, keepdims=True)
    invstd = 1 / np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    xhat = (x - mean) * invstd
    M = x.shape[-1]

    def grad_x(grad_output: Array) -> Array:
        gh = grad_output * w if weight else grad_output
        total = M * gh
        if mean_term:
            total = total - gh.sum(axis=-1, keepdims=True)
        if variance_term:
            total = total - xhat * (gh * xhat).sum(axis=-1, keepdims=True)
        return invstd / M * total
    return grad_x


def layer_norm_mistakes(k: int, got: Array, inputs: list[Any], grad_output: Array) -> str | None:
    """``mistakes`` for the layer norm backward (inputs x, w, b, then normalized_ndim and eps as arguments)."""
    if k != 0:
        return None
    x, w = inputs[0], inputs[1]
    eps = 1e-5
    for options, text in ((dict(mean_term=False), _("the mean term is missing: every x moves the mean, so "
                                                    "subtract gh.sum(axis=-1, keepdims=True)")),
                          (dict(variance_term=False), _("the variance term is missing: every x moves the variance, "
                                                        "so subtract xhat * (gh * xhat).sum(axis=-1, keepdims=True)")),
                          (dict(weight=False), _("multiply grad_output by w first: gh = grad_output * w")),
                          (dict(mean_term=False, variance_term=False), _(
                              "the mean and the variance terms are both missing: every x moves the mean and the "
                              "variance, so subtract gh.sum(axis=-1, keepdims=True) and xhat * (gh * xhat)"
                              ".sum(axis=-1, keepdims=True) from M * gh"))):
        wrong = _layer_norm_grad_x(x, w, eps, **options)(grad_output)
        if np.allclose(got, wrong, atol=1e-6, rtol=1e-5):
            return text
    return None
