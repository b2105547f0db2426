"""Sampling from a tensor of probabilities: ``bernoulli`` and ``multinomial``.

Neither has a gradient (a sample is not a smooth function of its probabilities), so they
are plain functions that make new leaf tensors, not ``Function``s. They draw from
minitorch's generator (or ``generator=``) exactly as PyTorch's CPU kernels draw
(``random/transforms.py``), so after the same seed the samples are PyTorch's.
Tensors on another device are sampled on the host and the result moved back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.errors import MiniTorchError, check_int
from minitorch.random import generator_or_default
from minitorch.random import transforms as random_transforms
from minitorch.tensor_base import T, TensorBase


def _host(t: TensorBase) -> np.ndarray:
    return backends.to_device(t.data, "cpu") if t.device != "cpu" else t.data


def _result(array: np.ndarray, like: T) -> T:
    return TensorBase._make(backends.to_device(np.ascontiguousarray(array), like.device), None, False)


def bernoulli(input: T, p: float | None = None, *, generator: Any = None) -> T:
    """1 with probability ``input`` (elementwise), else 0, with ``input``'s dtype.

    ``bernoulli(t, p)`` uses the one probability ``p`` for every element instead.
    """
    if not isinstance(input, TensorBase):
        raise TypeError(f"bernoulli(): argument 'input' must be a Tensor, not {type(input).__name__}")
    source = _host(input)
    gen = generator_or_default(generator, "bernoulli")
    if p is not None:
        keep = random_transforms.bernoulli_scalar(gen, source.size, random_transforms.check_probability("bernoulli", p))
        return _result(random_transforms.in_memory_order(keep, source).astype(source.dtype), input)
    if source.dtype.kind != "f":
        raise MiniTorchError(f"bernoulli(): expected a floating-point tensor of probabilities, got {input.dtype}")
    if source.size and not ((source >= 0) & (source <= 1)).all():
        raise MiniTorchError(
            f"bernoulli(): every probability must be in [0, 1], got values from {source.min()} to {source.max()}"
        )
    ordered = np.ascontiguousarray(source)  # PyTorch walks the probabilities in memory order
    samples = random_transforms.bernoulli_tensor(gen, ordered).reshape(source.shape)
    return _result(samples.astype(source.dtype), input)


def multinomial(input: T, num_samples: int, replacement: bool = False, *, generator: Any = None) -> T:
    """Indices drawn from the categories of each row of ``input`` (weights, not necessarily
    summing to 1): (rows, num_samples) for a 2-D ``input``, (num_samples,) for a 1-D one.

    Without ``replacement`` a row never repeats a category, so ``num_samples`` may not
    exceed the number of categories.
    """
    if not isinstance(input, TensorBase):
        raise TypeError(f"multinomial(): argument 'input' must be a Tensor, not {type(input).__name__}")
    num_samples = check_int("multinomial", "num_samples", num_samples)
    if input.ndim not in (1, 2):
        raise MiniTorchError(f"multinomial: prob_dist must be 1 or 2 dim, got a tensor of shape {tuple(input.shape)}")
    if input.data.dtype.kind != "f":
        raise MiniTorchError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype}")
    if num_samples <= 0:
        raise MiniTorchError(f"multinomial: cannot sample n_sample <= 0 samples, got num_samples={num_samples}")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise MiniTorchError(
            f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"(num_samples={num_samples}, {categories} categories)"
        )
    if categories > 2**24:
        raise MiniTorchError(f"multinomial: number of categories cannot exceed 2^24, got {categories}")
    probs = np.ascontiguousarray(_host(input)).reshape(-1, categories)
    _check_weights(probs)
    samples = random_transforms.multinomial(
        generator_or_default(generator, "multinomial"), probs, num_samples, bool(replacement)
    )
    return _result(samples.reshape(*input.shape[:-1], num_samples), input)


def _check_weights(probs: np.ndarray) -> None:
    """PyTorch's checks: finite, non-negative weights, and no row summing to zero."""
    if probs.size == 0:
        return
    if not (np.isfinite(probs).all() and (probs >= 0).all()):
        raise MiniTorchError("multinomial: probability tensor contains either `inf`, `nan` or element < 0")
    if (probs.sum(axis=1) == 0).any():
        raise MiniTorchError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
