"""Ways to make tensors: ``tensor``, ``zeros``, ``ones``, ``rand``, ``arange``, ... and the
random seed. Shapes may be given as separate numbers or as one tuple, as in PyTorch."""

import math
import sys

import numpy as np

from minitorch import backends, python_data
from minitorch.dtypes import bool_, default_float, get_dtype, int64
from minitorch.errors import MiniTorchError, check_int, check_sizes
from minitorch.random import STATE_AS_TENSOR, generator_or_default, transforms
from minitorch.tensor_base import TensorBase

# Generator.get_state() returns its bytes as a tensor (random/ sits below the tensors);
# int64, since MiniTorch has no uint8 dtype.
STATE_AS_TENSOR.wrap = lambda array: TensorBase._make(array.astype(np.int64), None, False)


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data`` (nested lists, a number, an array or a Tensor)."""
    try:
        if isinstance(data, (list, tuple)):
            python_data.check_nesting(data)
            data = _one_element_tensors_as_numbers(data)
        return TensorBase._from_data(data, dtype=dtype, device=device, requires_grad=requires_grad)
    except RecursionError:
        # Deep nesting off the first-element path (check_nesting follows that path only).
        raise ValueError(
            f"tensor(): the data is nested deeper than Python can follow (sys.getrecursionlimit() = "
            f"{sys.getrecursionlimit()}), and a tensor has at most {python_data.MAX_DIMS} dimensions; "
            "nest one list per dimension, e.g. [[1, 2], [3, 4]]"
        ) from None
    except TypeError as error:
        named = python_data.string_error(data) if isinstance(data, (list, tuple, str, bytes)) else None
        if named is None:
            raise
        raise named from error


def _one_element_tensors_as_numbers(data):
    """Nested lists with each Tensor inside made 0-d, as PyTorch reads them (as Python numbers).

    So ``tensor([t1, t2])`` of shape-(1,) tensors has shape (2,), and tensors of several
    elements are refused (to stack tensors, use ``minitorch.stack``).
    """
    if not any(isinstance(x, (list, tuple, TensorBase)) for x in data):
        return data  # plain numbers: nothing to do (the common case)
    out = []
    for x in data:
        if isinstance(x, (list, tuple)):
            x = _one_element_tensors_as_numbers(x)
        elif isinstance(x, TensorBase) and x.ndim:
            if x.numel() != 1:
                raise ValueError(
                    f"tensor(): only one element tensors can be converted to Python scalars, got a tensor of shape "
                    f"{tuple(x.shape)} inside the list; to join tensors use minitorch.stack(tensors) or minitorch.cat"
                )
            x = TensorBase._make(x.data.reshape(()), None, False)  # its one value, outside the graph
        out.append(x)
    return out


def from_numpy(array):
    """A CPU tensor that shares memory with the NumPy ``array``."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(array).__name__}")
    dtype = get_dtype(array.dtype) if array.dtype.kind != "O" else None
    if dtype is None or dtype.np_dtype != array.dtype:
        raise TypeError(f"from_numpy: unsupported dtype {array.dtype}; use minitorch.tensor(array) to convert")
    return TensorBase._make(array, None, False)


def _size(size, op):
    """``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])`` as a tuple of ints; a float size (2.5)
    is a TypeError naming ``op``, never truncated, and a negative one is an error."""
    if not size:  # as PyTorch: zeros() is an error; zeros(()) is the way to ask for 0-d
        raise TypeError(f"{op}() missing 1 required positional argument: 'size' (use {op}(()) for a 0-d tensor)")
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = check_sizes(op, "size", size)
    if any(s < 0 for s in size):
        raise MiniTorchError(f"{op}(): trying to create a tensor with negative dimension in size {size}")
    return size


def _finish(array, dtype, device, requires_grad):
    """Place a freshly made NumPy array on ``device`` as a Tensor."""
    if dtype is not None:
        array = array.astype(get_dtype(dtype).np_dtype, copy=False)
    device = backends.normalize_device(device)
    if device != "cpu":
        array = backends.to_device(array, device)
    t = TensorBase._make(array, None, False)
    return t.requires_grad_(True) if requires_grad else t


def _filled(size, value, dtype, device, requires_grad, op):
    dtype = get_dtype(dtype) if dtype is not None else default_float()
    device = backends.normalize_device(device)
    xp = backends.array_module(device)
    array = xp.full(_size(size, op), value, dtype=dtype.np_dtype)
    t = TensorBase._make(array, None, False)
    return t.requires_grad_(True) if requires_grad else t


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros with the given shape."""
    return _filled(size, 0, dtype, device, requires_grad, "zeros")


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of ones with the given shape."""
    return _filled(size, 1, dtype, device, requires_grad, "ones")


def empty(*size, dtype=None, device=None, requires_grad=False):
    """A tensor with the given shape (MiniTorch fills it with zeros)."""
    return _filled(size, 0, dtype, device, requires_grad, "empty")


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """A tensor filled with ``fill_value``; the dtype follows the value, as in PyTorch."""
    if dtype is None:
        dtype = bool_ if isinstance(fill_value, bool) else int64 if isinstance(fill_value, int) else default_float()
    # PyTorch wants a tuple; a lone int is accepted here (its meaning is unambiguous).
    size = (size,) if not isinstance(size, (tuple, list)) else (tuple(size),)
    return _filled(size, fill_value, dtype, device, requires_grad, "full")


def _like(t, dtype, device):
    return (dtype if dtype is not None else t.dtype), (device if device is not None else t.device)


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    """Zeros with ``t``'s shape (and dtype and device unless given)."""
    dtype, device = _like(t, dtype, device)
    return _filled((t.shape,), 0, dtype, device, requires_grad, "zeros_like")


def ones_like(t, dtype=None, device=None, requires_grad=False):
    """Ones with ``t``'s shape (and dtype and device unless given)."""
    dtype, device = _like(t, dtype, device)
    return _filled((t.shape,), 1, dtype, device, requires_grad, "ones_like")


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    """``fill_value`` everywhere, with ``t``'s shape (and dtype and device unless given)."""
    dtype, device = _like(t, dtype, device)
    return _filled((t.shape,), fill_value, dtype, device, requires_grad, "full_like")


def empty_like(t, dtype=None, device=None, requires_grad=False):
    """A tensor with ``t``'s shape whose values are not set (MiniTorch gives zeros)."""
    dtype, device = _like(t, dtype, device)
    return _filled((t.shape,), 0, dtype, device, requires_grad, "empty_like")


def rand_like(t, dtype=None, device=None, requires_grad=False, *, generator=None):
    """Uniform [0, 1) random numbers with ``t``'s shape (and dtype and device unless given)."""
    dtype, device = _like(t, dtype, device)
    return rand(*t.shape, dtype=dtype, device=device, requires_grad=requires_grad, generator=generator)


def randn_like(t, dtype=None, device=None, requires_grad=False, *, generator=None):
    """Standard normal random numbers with ``t``'s shape (and dtype and device unless given)."""
    dtype, device = _like(t, dtype, device)
    return randn(*t.shape, dtype=dtype, device=device, requires_grad=requires_grad, generator=generator)


def randint_like(t, low, high=None, dtype=None, device=None, requires_grad=False, *, generator=None):
    """Random integers in [low, high) with ``t``'s shape (``randint_like(t, high)`` starts at 0)."""
    dtype, device = _like(t, dtype, device)
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(t.shape), dtype=dtype, device=device, requires_grad=requires_grad,
                   generator=generator)


# The random factories draw on the host from a mt19937 generator, with PyTorch's transforms
# (random/transforms.py), and upload the result: a seed gives PyTorch's CPU numbers on
# every device, so a model initialised on the GPU matches its CPU twin. It is one upload at
# creation, never a copy per op.
def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform random numbers in [0, 1)."""
    dtype = _floating_dtype(dtype, "rand")
    shape = _size(size, "rand")
    values = transforms.uniform(generator_or_default(generator, "rand"), math.prod(shape), dtype.np_dtype, 0.0, 1.0)
    return _finish(values.reshape(shape), None, device, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal random numbers (mean 0, std 1)."""
    dtype = _floating_dtype(dtype, "randn")
    shape = _size(size, "randn")
    values = transforms.normal(generator_or_default(generator, "randn"), math.prod(shape), dtype.np_dtype, 0.0, 1.0)
    return _finish(values.reshape(shape), None, device, requires_grad)


def _floating_dtype(dtype, op):
    """The dtype for rand/randn: a floating one, as PyTorch requires (int64 is refused there)."""
    dtype = get_dtype(dtype) if dtype is not None else default_float()
    if not dtype.is_floating_point:
        raise MiniTorchError(f"{op}(): expected a floating point dtype, got {dtype}; use randint for integers")
    return dtype


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Random integers in [low, high) (``randint(high, size)`` starts at 0)."""
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint(): a size tuple is required, e.g. randint(0, 10, (3,))")
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"randint(): argument 'size' must be a tuple of ints, not {type(size).__name__}; "
            f"e.g. randint({low}, {high}, ({size},))"
        )
    low, high = check_int("randint", "low", low), check_int("randint", "high", high)
    if low >= high:
        raise MiniTorchError(f"randint(): expected low < high, but got low={low} >= high={high}")
    shape = _size((size,), "randint")
    values = transforms.integers(generator_or_default(generator, "randint"), math.prod(shape), low, high)
    return _finish(values.reshape(shape), dtype if dtype is not None else int64, device, requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0..n-1 (int64 unless ``dtype`` says otherwise)."""
    n = check_int("randperm", "n", n)
    if n < 0:
        raise MiniTorchError(f"randperm(): n must be non-negative, got {n}")
    values = transforms.permutation(generator_or_default(generator, "randperm"), n)
    return _finish(values, dtype if dtype is not None else int64, device, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Evenly spaced values in [start, end); int64 for integer arguments, else the default float dtype (float32)."""
    # 0-d tensors count as their numbers (arange(t.shape[0]) with t a tensor size, arange(n_t)).
    start, end, step = (v.item() if isinstance(v, TensorBase) else v for v in (start, end, step))
    if end is None:
        start, end = 0, start
    if step == 0:
        raise MiniTorchError("arange: step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end, step)):
        raise MiniTorchError(f"arange: unsupported range: {start} -> {end} (step {step}); bounds must be finite")
    if (end - start) * step < 0:
        raise MiniTorchError(
            f"arange: upper bound and lower bound inconsistent with step sign: {start} -> {end} with step {step}"
        )
    if dtype is None:
        whole = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = int64 if whole else default_float()
    dtype = get_dtype(dtype)
    # Built where it will live (no host round trip on a GPU). Count in float64 then cast,
    # so float32 ranges have the same length as PyTorch's.
    xp = backends.array_module(backends.normalize_device(device))
    array = xp.arange(start, end, step, dtype=np.float64 if dtype.is_floating_point else np.int64)
    return _finish(array.astype(dtype.np_dtype), None, device, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from start to end, both included."""
    dtype = get_dtype(dtype) if dtype is not None else default_float()
    steps = check_int("linspace", "steps", steps)
    if steps < 0:
        raise MiniTorchError(f"linspace(): number of steps must be non-negative, got {steps}")
    xp = backends.array_module(backends.normalize_device(device))
    array = xp.linspace(start, end, steps).astype(dtype.np_dtype)
    return _finish(array, None, device, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    """An identity matrix (ones on the diagonal)."""
    dtype = get_dtype(dtype) if dtype is not None else default_float()
    n = check_int("eye", "n", n)
    m = n if m is None else check_int("eye", "m", m)
    for name, value in (("n", n), ("m", m)):
        if value < 0:
            raise MiniTorchError(f"eye(): {name} must be greater or equal to 0, got {value}")
    xp = backends.array_module(backends.normalize_device(device))
    return _finish(xp.eye(n, m, dtype=dtype.np_dtype), None, device, requires_grad)


def random_values_like(like: TensorBase, distribution: str, a: float, b: float, generator=None) -> TensorBase:
    """Samples of N(a, b**2) (``"normal"``), U(a, b) (``"uniform"``) or Bernoulli(a)
    (``"bernoulli"``) with ``like``'s shape, dtype and device: the values of ``normal_``,
    ``uniform_`` and ``bernoulli_``, drawn as PyTorch draws them (in ``like``'s memory order).

    Drawn on the host, then moved, so a seed gives the same numbers on every device.
    """
    array = like.data  # only its shape, dtype and layout are read (NumPy and CuPy arrays have them)
    generator = generator_or_default(generator, f"{distribution}_")
    n, dtype = array.size, np.dtype(array.dtype)
    if distribution == "normal":
        values = transforms.normal(generator, n, dtype, a, b, filled=array.flags.c_contiguous)
    elif distribution == "uniform":
        values = transforms.uniform(generator, n, dtype, a, b)
    else:
        values = transforms.bernoulli_scalar(generator, n, a).astype(dtype)
    values = transforms.in_memory_order(values, array)
    return TensorBase._make(backends.to_device(np.ascontiguousarray(values), like.device), None, False)
