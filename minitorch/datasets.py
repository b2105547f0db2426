"""Small datasets for the lessons: handwritten digits and 2-D toy problems.

- ``load_digits()``: scikit-learn's bundled 8x8 digits (1,797 images, no download),
  split 80/20 with a fixed stratified split (every class in the same proportion in both
  parts) and standardised per pixel with the training part's statistics.
- ``make_spiral``, ``make_moons``, ``make_xor``: 2-D point clouds whose decision boundaries
  are easy to draw.

Each returns tensors (float32 features, int64 labels), ready for ``TensorDataset``.
"""

from collections import namedtuple

import numpy as np

from minitorch.errors import MiniTorchError
from minitorch.factories import from_numpy

Split = namedtuple("Split", ["X_train", "y_train", "X_test", "y_test"])


def stratified_split(y, test_fraction=0.2, seed=0):
    """Indices (train, test) with each class split in the same proportion; repeatable for a seed."""
    rng = np.random.default_rng(seed)
    train, test = [], []
    for label in np.unique(y):
        idx = np.flatnonzero(y == label)
        rng.shuffle(idx)
        n_test = int(round(len(idx) * test_fraction))
        test.append(idx[:n_test])
        train.append(idx[n_test:])
    train, test = np.concatenate(train), np.concatenate(test)
    # Mix the classes so the arrays are not sorted by label.
    return rng.permutation(train), rng.permutation(test)


def load_digits(images=False, test_fraction=0.2, seed=0, scale="standard"):
    """The 8x8 digits as ``Split(X_train, y_train, X_test, y_test)`` tensors.

    ``scale="standard"`` (the default) standardises each pixel with the mean and standard
    deviation of the *training* images (so nothing about the test images leaks into
    training); ``scale="unit"`` only divides the 0..16 values by 16. ``images=True`` shapes
    X as (N, 1, 8, 8) for a CNN, otherwise (N, 64). The split is stratified and fixed by
    ``seed`` (1,438 training / 359 test images).
    """
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError as exc:  # scikit-learn ships the data file; we need only that
        raise MiniTorchError("load_digits needs scikit-learn (pip install scikit-learn)") from exc
    if scale not in ("standard", "unit"):
        raise MiniTorchError(f"load_digits: scale must be 'standard' or 'unit', got {scale!r}")
    bunch = sklearn_digits()
    X = bunch.data / 16.0
    y = bunch.target.astype(np.int64)
    train, test = stratified_split(y, test_fraction, seed)
    X_train, X_test = X[train], X[test]
    if scale == "standard":
        mean, std = X_train.mean(axis=0), X_train.std(axis=0)
        std[std == 0] = 1.0  # pixels that are always blank (the image border) stay 0
        X_train, X_test = (X_train - mean) / std, (X_test - mean) / std
    shape = (-1, 1, 8, 8) if images else (-1, 64)
    return Split(
        from_numpy(np.ascontiguousarray(X_train.reshape(shape), dtype=np.float32)),
        from_numpy(y[train].copy()),
        from_numpy(np.ascontiguousarray(X_test.reshape(shape), dtype=np.float32)),
        from_numpy(y[test].copy()),
    )


def _finish(X, y, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    return from_numpy(X[order].astype(np.float32)), from_numpy(y[order].astype(np.int64))


def make_spiral(n_per_class=100, classes=3, noise=0.2, seed=0):
    """``classes`` interleaved spiral arms in 2-D: (X (N, 2), y (N,))."""
    if n_per_class < 1 or classes < 2:
        raise MiniTorchError("make_spiral: need n_per_class >= 1 and classes >= 2")
    rng = np.random.default_rng(seed)
    radius = np.tile(np.linspace(0.0, 1.0, n_per_class), classes)
    label = np.repeat(np.arange(classes), n_per_class)
    angle = label * (2 * np.pi / classes) + radius * 4.0 + rng.normal(0.0, noise, radius.shape)
    X = np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1)
    return _finish(X, label, seed + 1)


def make_moons(n=200, noise=0.1, seed=0):
    """Two interleaving half circles: (X (n, 2), y (n,))."""
    rng = np.random.default_rng(seed)
    n_top = n // 2
    t_top = np.linspace(0, np.pi, n_top)
    t_bottom = np.linspace(0, np.pi, n - n_top)
    top = np.stack([np.cos(t_top), np.sin(t_top)], axis=1)
    bottom = np.stack([1 - np.cos(t_bottom), 0.5 - np.sin(t_bottom)], axis=1)
    X = np.concatenate([top, bottom]) + rng.normal(0.0, noise, (n, 2))
    y = np.concatenate([np.zeros(n_top), np.ones(n - n_top)])
    return _finish(X, y, seed + 1)


def make_xor(n=200, noise=0.1, seed=0):
    """Points around the four corners of a square; label = xor of the signs: (X (n, 2), y (n,))."""
    rng = np.random.default_rng(seed)
    corners = rng.integers(0, 2, size=(n, 2))
    X = (corners * 2 - 1) + rng.normal(0.0, noise * 2, (n, 2))
    y = corners[:, 0] ^ corners[:, 1]
    return _finish(X, y, seed + 1)
