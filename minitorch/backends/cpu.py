"""The CPU backend: NumPy arrays in host memory. Always available."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.backends.base import Backend
from minitorch.random import default_generator
from minitorch.random import transforms as random_transforms


class CpuBackend(Backend):
    """NumPy on the host."""

    name = "cpu"
    label = "CPU"
    is_host = True
    xp = np
    array_type = np.ndarray

    def upload(self, host_array: Any) -> Any:
        return host_array

    def download(self, array: Any) -> Any:
        return array

    def reshape_view(self, array: Any, shape: tuple[int, ...]) -> Any:
        try:
            return array.reshape(shape, copy=False)
        except ValueError:
            return None
        except TypeError:
            # NumPy < 2.1 has no ``copy`` argument: only C-contiguous data is sure to view.
            return array.reshape(shape) if array.flags.c_contiguous else None

    def index_add(self, target: Any, index: Any, values: Any) -> Any:
        if _rows_of(target, index, values):
            # Whole rows picked by one index array (an embedding's gradient): sort the rows by
            # index, sum each run of equal indices with one reduceat, add each sum once.
            # add.at does the same one row at a time, several times slower (docs/benchmarks.md).
            order = np.argsort(index, kind="stable")
            picked = index[order]
            starts = np.flatnonzero(np.concatenate(([True], picked[1:] != picked[:-1])))
            target[picked[starts]] += np.add.reduceat(values[order], starts, axis=0)
        else:
            np.add.at(target, index, values)  # unlike ``target[index] += v``, adds repeats up
        return target

    def uniform(self, shape: tuple[int, ...], dtype: Any) -> Any:
        # MiniTorch's own generator (minitorch.manual_seed), with PyTorch's uniform transform.
        dtype = np.float32 if dtype == np.float32 else np.float64
        count = int(np.prod(shape, dtype=np.int64))
        return random_transforms.uniform(default_generator(), count, dtype, 0.0, 1.0).reshape(shape)


def _rows_of(target: Any, index: Any, values: Any) -> bool:
    """``index`` is a 1-D array of non-negative row numbers and ``values`` one full row per index."""
    return (
        type(index) is np.ndarray
        and index.ndim == 1
        and index.dtype.kind in "iu"
        and index.size > 0
        and target.ndim >= 2
        and type(values) is np.ndarray
        and values.shape == index.shape + target.shape[1:]
        and values.dtype == target.dtype
        and int(index.min()) >= 0
    )


CPU = CpuBackend()
