"""From the generator's raw 32-bit numbers to PyTorch's random values, transform by transform.

Each function here draws from a ``minitorch.Generator`` exactly what PyTorch's CPU kernels
draw (``aten/src/ATen/core/DistributionsHelper.h``, ``TransformationHelper.h`` and
``native/cpu/DistributionTemplates.h``), in the same order, and rounds where they round, so
after the same seed MiniTorch gets PyTorch's numbers bit for bit. They return flat NumPy
arrays in the order PyTorch fills a tensor (memory order; ``in_memory_order`` places them).
"""

from __future__ import annotations

import math

import numpy as np

from minitorch.errors import MiniTorchError
from minitorch.random.box_muller import fma32, fma64, libm, normal_blocks_float32, normal_blocks_float64
from minitorch.random.generator import Generator

_F32 = np.float32


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """PyTorch computes float16 samples in float32 ("opmath") and rounds at the end."""
    return np.dtype(np.float64) if np.dtype(dtype) == np.float64 else np.dtype(_F32)


def unit_float32(generator: Generator, n: int) -> np.ndarray:
    """``n`` uniforms in [0, 1): 24 random bits of one 32-bit draw each, times 2**-24."""
    bits = generator.random32(n) & np.uint64((1 << 24) - 1)
    return bits.astype(_F32) * _F32(2.0**-24)


def unit_float64(generator: Generator, n: int) -> np.ndarray:
    """``n`` uniforms in [0, 1): 53 random bits of one 64-bit draw each, times 2**-53."""
    bits = generator.random64(n) & np.uint64((1 << 53) - 1)
    return bits.astype(np.float64) * 2.0**-53


def uniform(generator: Generator, n: int, dtype: np.dtype, low: float, high: float) -> np.ndarray:
    """``uniform_(low, high)`` / ``rand``: ``fma(u, high - low, low)``; a value rounded up to
    ``high`` becomes ``low``, so the range stays [low, high)."""
    if _compute_dtype(dtype) == np.float64:
        values = fma64(unit_float64(generator, n), high - low, low)
    else:
        lo, hi = _F32(low), _F32(high)
        values = fma32(unit_float32(generator, n), hi - lo, lo)
    values = values.astype(dtype)
    return np.where(values == np.asarray(high, dtype), np.asarray(low, dtype), values)


def normal(generator: Generator, n: int, dtype: np.dtype, mean: float, std: float, filled: bool = True) -> np.ndarray:
    """``normal_(mean, std)`` / ``randn``.

    ``filled`` (a contiguous tensor) with 16 or more elements: Box-Muller over blocks of 16
    uniforms (``box_muller.py``); when ``n`` is not a multiple of 16 the last 16 values are
    redone from 16 fresh uniforms. Otherwise the scalar path (``normal_pairs``). float16
    is computed in float32 and rounded at the end.
    """
    if n < 16 or not filled:
        return normal_pairs(generator, n, mean, std).astype(dtype)
    full = n - n % 16
    if _compute_dtype(dtype) == np.float64:
        draw, blocks = unit_float64, normal_blocks_float64
    else:
        draw, blocks = unit_float32, normal_blocks_float32
    values = np.empty(n, dtype=_compute_dtype(dtype))
    # float32/float64 draw a uniform for every element first (the last n % 16 are then
    # overwritten unused); float16 goes block by block and draws only the full blocks.
    drawn = n if np.dtype(dtype) == _compute_dtype(dtype) else full
    values[:full] = blocks(draw(generator, drawn)[:full].reshape(-1, 16), mean, std).ravel()
    if n % 16:
        values[n - 16:] = blocks(draw(generator, 16).reshape(1, 16), mean, std).ravel()
    return values.astype(dtype)


def normal_pairs(generator: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """The scalar path, always in float64: each pair of uniforms (u1, u2) gives
    ``r cos(theta)`` now and ``r sin(theta)`` later, kept in the generator for the next
    normal (``r = sqrt(-2 log1p(-u2))``, ``theta = 2 pi u1``)."""
    raw: list[float] = []
    if n and generator.next_double_normal is not None:
        raw.append(generator.next_double_normal)
        generator.next_double_normal = None
    pairs = -(-(n - len(raw)) // 2)
    u = unit_float64(generator, 2 * pairs).reshape(pairs, 2)
    radius = np.sqrt(-2.0 * libm(math.log1p, -u[:, 1]))
    theta = 2.0 * math.pi * u[:, 0]
    interleaved = np.stack([radius * libm(math.cos, theta), radius * libm(math.sin, theta)], axis=1).ravel()
    values = np.concatenate([np.array(raw, dtype=np.float64), interleaved])
    if values.size > n:  # an odd count: the last sine waits for the next call
        generator.next_double_normal = float(values[n])
    return fma64(values[:n], std, mean)


def integers(generator: Generator, n: int, low: int, high: int) -> np.ndarray:
    """``random_(low, high)`` / ``randint``: ``draw % (high - low) + low``, the draw being
    32 bits for a range below 2**28 and 64 bits from there (so the modulo's skew stays small)."""
    span = high - low
    draws = generator.random64(n) if span >= 1 << 28 else generator.random32(n)
    return (draws % np.uint64(span)).astype(np.int64) + np.int64(low)


def random_int64(generator: Generator) -> int:
    """``torch.empty((), dtype=torch.int64).random_()``: one 64-bit draw modulo 2**63."""
    return int(generator.random64(1)[0] % np.uint64(1 << 63))


def permutation(generator: Generator, n: int) -> np.ndarray:
    """``randperm(n)``: Fisher-Yates from the front, swapping element i with a random later one.

    The swaps are sequential by nature (each depends on the previous ones), so they run as
    a Python loop over a list; the draws themselves come at once.
    """
    if n < (2**32 - 1) // 20:
        order = list(range(n))
        offsets = (generator.random32(max(n - 1, 0)) % (n - np.arange(max(n - 1, 0), dtype=np.uint64))).tolist()
        for i, offset in enumerate(offsets):
            j = i + offset
            order[i], order[j] = order[j], order[i]
        return np.array(order, dtype=np.int64)
    # Huge n: PyTorch switches to the "inside-out" variant with 64-bit draws (no modulo skew).
    picks = (generator.random64(n) % (np.arange(n, dtype=np.uint64) + np.uint64(1))).tolist()
    out = list(range(n))
    for i, z in enumerate(picks):
        out[i] = out[z]
        out[z] = i
    return np.array(out, dtype=np.int64)


def bernoulli_scalar(generator: Generator, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)`` for a number ``p`` (dropout's masks): ``u < p``, u a float64 uniform."""
    return unit_float64(generator, n) < p


def bernoulli_tensor(generator: Generator, probs: np.ndarray) -> np.ndarray:
    """``bernoulli(probs)``: one draw per element, ``u < p``; float64 uniforms for float64
    probabilities, float32 ones (24 bits) for every other dtype."""
    probs = np.ascontiguousarray(probs).ravel()
    if probs.dtype == np.float64:
        return unit_float64(generator, probs.size) < probs
    return unit_float32(generator, probs.size) < probs.astype(_F32)


def exponential(generator: Generator, n: int, dtype: np.dtype, rate: float) -> np.ndarray:
    """``exponential_(rate)``: ``-1/rate * log1p(-u)``, u a float64 uniform, then rounded."""
    return ((-1.0 / rate) * libm(math.log1p, -unit_float64(generator, n))).astype(dtype)


def multinomial(generator: Generator, probs: np.ndarray, num_samples: int, replacement: bool) -> np.ndarray:
    """``multinomial`` of a (rows, categories) array of weights: (rows, num_samples) indices.

    Without replacement (or one sample) PyTorch uses the exponential race: the categories
    with the largest ``weight / q``, q ~ Exp(1) drawn for every weight. With replacement
    each row inverts its normalised cumulative sum at float64 uniforms, row by row.
    """
    rows, categories = probs.shape
    if not replacement or num_samples == 1:
        race = probs / exponential(generator, probs.size, probs.dtype, 1.0).reshape(probs.shape)
        if num_samples == 1:
            return np.argmax(race, axis=1).reshape(rows, 1).astype(np.int64)
        return np.argsort(-race, axis=1, kind="stable")[:, :num_samples].astype(np.int64)
    accumulate = np.float64 if probs.dtype == np.float64 else _F32
    out = np.empty((rows, num_samples), dtype=np.int64)
    for row in range(rows):
        cumulative = np.cumsum(probs[row].astype(accumulate))  # sequential sums, as PyTorch's loop
        cumulative = cumulative / cumulative[-1]
        cumulative[-1] = 1
        out[row] = np.searchsorted(cumulative.astype(np.float64), unit_float64(generator, num_samples), side="left")
    return out


def in_memory_order(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``values`` (PyTorch's fill order) laid out with ``like``'s shape: filled along
    ``like``'s memory, the smallest stride fastest, as PyTorch's TensorIterator walks it."""
    if like.flags.c_contiguous or like.ndim < 2:
        return values.reshape(like.shape)
    order = sorted(range(like.ndim), key=lambda axis: -abs(like.strides[axis]))
    shaped = values.reshape([like.shape[axis] for axis in order])
    return shaped.transpose(np.argsort(order))


def check_probability(op: str, p: float) -> float:
    """``p`` as a float in [0, 1], else PyTorch's error naming ``op``."""
    p = float(p)
    if not 0 <= p <= 1:
        raise MiniTorchError(f"{op}: expected p to be in the range [0, 1], but got p={p}")
    return p
