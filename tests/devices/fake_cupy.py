"""A stand-in for CuPy, for testing the GPU backend's logic on a machine without a GPU.

``FakeCupy`` looks like the ``cupy`` module to MiniTorch: arrays of class
``FakeDeviceArray`` (a NumPy array that says it lives on the device) come out of every
function, ``.get()`` copies to the host, ``scatter_add`` adds at repeated indices, and
the memory-pool and runtime calls answer. Like real CuPy, mixing a device array with a
plain NumPy array in arithmetic is a ``TypeError``, so an op that builds a host array
and combines it with device data fails here as it would on a GPU. Also as in CuPy: an
out-of-range integer array index wraps around instead of raising, and indexing one element
gives a 0-d device array, not a host scalar.

What it cannot catch: NumPy calls that accept device arrays here but not in CuPy (for
instance ``np.asarray(device_array)``, which real CuPy refuses). The real-GPU tests
(``pytest -m gpu`` in ``bench/gpu_check.sh``) cover those.

Several variants model the three ways a GPU can be unusable: ``FakeCupy(devices=0)``
(no device: ``getDeviceCount`` raises like CUDA without a driver) and
``FakeCupy(nvrtc=False)`` (kernels cannot compile), ``FakeCupy(curand=False)`` (a CUDA
library is missing).
"""

import collections
import contextlib
import types

import numpy as np

# Kernel launches a real CuPy would make, counted by kind ("multiply", "add.reduce",
# "zeros_like", "gather", the name of an ElementwiseKernel...). Approximate: every ufunc
# call, reduction, module function, advanced-indexing gather/scatter, copy and cast
# counts one launch; views (reshape, transpose, basic slices) count none. Tests clear it
# and read ``sum(LAUNCHES.values())`` around a training step.
LAUNCHES = collections.Counter()


def _has_array_index(index):
    """True when ``index`` holds an integer or boolean array (a gather/scatter kernel in CuPy)."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, (np.ndarray, list)) for p in parts)


class FakeCUDARuntimeError(RuntimeError):
    """What CuPy raises when CUDA has no driver or device."""


class FakeDeviceArray(np.ndarray):
    """A NumPy array that pretends to live in GPU memory."""

    def get(self):
        """Copy to the host, as ``cupy.ndarray.get()``."""
        return np.array(self.view(np.ndarray), copy=True)

    def scatter_add(self, index, values):
        """``self[index] += values`` with repeated indices adding up (CuPy's atomics)."""
        np.add.at(self.view(np.ndarray), _wrapped(_host(index), self.shape), _host(values))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        for value in inputs + tuple(kwargs.get("out", ()) or ()):
            if isinstance(value, np.ndarray) and not isinstance(value, FakeDeviceArray):
                raise TypeError(
                    f"fake cupy: {ufunc.__name__} got a host numpy.ndarray mixed with device arrays "
                    "(real CuPy refuses this too)"
                )
        LAUNCHES[ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"] += 1
        host_inputs = tuple(_host(v) for v in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(_host(v) for v in kwargs["out"])
        result = getattr(ufunc, method)(*host_inputs, **kwargs)
        return _device(result)


    def __getitem__(self, index):
        if _has_array_index(index):
            LAUNCHES["gather"] += 1
        # One element is a 0-d device array in CuPy, not a host scalar as NumPy gives.
        return _device(super().__getitem__(_wrapped(_host(index), self.shape)))

    def __setitem__(self, index, value):
        LAUNCHES["scatter" if _has_array_index(index) else "fill"] += 1
        super().__setitem__(_wrapped(_host(index), self.shape), _host(value))

    def argmax(self, *args, **kwargs):
        return _device(super().argmax(*args, **kwargs))  # a 0-d device array, as in CuPy

    def argmin(self, *args, **kwargs):
        return _device(super().argmin(*args, **kwargs))

    def copy(self, order="C"):
        LAUNCHES["copy"] += 1
        return super().copy(order)

    def astype(self, dtype, *args, **kwargs):
        if np.dtype(dtype) != self.dtype or kwargs.get("copy", True):
            LAUNCHES["astype"] += 1
        return super().astype(dtype, *args, **kwargs)


def _host(value):
    """Plain NumPy views of device arrays inside ``value`` (for calling NumPy)."""
    if isinstance(value, FakeDeviceArray):
        return value.view(np.ndarray)
    if isinstance(value, tuple):
        return tuple(_host(v) for v in value)
    if isinstance(value, list):
        return [_host(v) for v in value]
    return value


def _wrapped(index, shape):
    """``index`` with its integer arrays taken modulo their axis's size.

    Real CuPy does not check integer array indices: an out-of-range one wraps around
    (``x[[1, 3]]`` of 3 elements reads ``x[1], x[0]``), where NumPy raises IndexError. So an
    op must check its indices itself (``functions/bounds.py``); here, as on a GPU, the
    gather or scatter silently reads or writes the wrong element.
    """
    parts = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(p, (np.ndarray, list)) for p in parts):
        return index
    parts = [np.asarray(p) if isinstance(p, list) else p for p in parts]
    used = sum(p.ndim if isinstance(p, np.ndarray) and p.dtype == bool else 1
               for p in parts if p is not None and p is not Ellipsis)
    wrapped, axis = [], 0
    for p in parts:
        if p is Ellipsis:
            axis += len(shape) - used
        elif isinstance(p, np.ndarray) and p.dtype.kind in "iu" and axis < len(shape) and shape[axis] > 0:
            p = np.mod(p, shape[axis])
        if p is not None and p is not Ellipsis:
            axis += p.ndim if isinstance(p, np.ndarray) and p.dtype == bool else 1
        wrapped.append(p)
    return tuple(wrapped) if isinstance(index, tuple) else wrapped[0]


def _device(value):
    """Device views of the arrays NumPy returned; NumPy scalars become 0-d device arrays."""
    if isinstance(value, FakeDeviceArray):
        return value
    if isinstance(value, np.ndarray):
        return value.view(FakeDeviceArray)
    if isinstance(value, np.generic):
        return np.asarray(value).view(FakeDeviceArray)
    if isinstance(value, tuple):
        return tuple(_device(v) for v in value)
    if isinstance(value, list):
        return [_device(v) for v in value]
    return value


def _upload(value, dtype=None):
    """``cupy.asarray``: host data copied to the fake device (device arrays pass through)."""
    if isinstance(value, FakeDeviceArray) and (dtype is None or value.dtype == np.dtype(dtype)):
        return value
    return np.array(_host(value), dtype=dtype, copy=True).view(FakeDeviceArray)


class _MemoryPool:
    """The memory-pool calls MiniTorch makes, counting the bytes of live fake arrays."""

    def __init__(self):
        self.freed = 0

    def used_bytes(self):
        return 4096

    def total_bytes(self):
        return 8192

    def free_all_blocks(self):
        self.freed += 1

    def malloc(self, size):
        return size


# The body of each MiniTorch kernel, written again in NumPy exactly as the CUDA C reads
# (``i`` is the flat index over the broadcast output), keyed by the kernel's name.
def _fake_kernel_bodies():
    def relu_forward(x):
        return np.where(x <= 0, x.dtype.type(0), x)

    def relu_backward(y, dy):
        return np.where(y != 0, dy, dy.dtype.type(0))

    def bias_relu_forward(x, b):
        v = x + b
        return np.where(v <= 0, v.dtype.type(0), v)

    def softmax_xent_backward(p, target, scale, c, ignore):
        shape = np.broadcast_shapes(p.shape, np.shape(target), np.shape(scale))
        i = np.arange(int(np.prod(shape))).reshape(shape)
        onehot = ((i % c) == target).astype(p.dtype)
        return np.where(target == ignore, p.dtype.type(0), (p - onehot) * scale).astype(p.dtype)

    def softmax_xent_forward(x, target, c, ignore, p, loss, count, bad):
        rows = x.reshape(-1, c)  # the kernel's flat, row-major indexing
        shifted = rows - rows.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        p[...] = (e / total).reshape(-1)
        skip = target == ignore
        bad[...] = ~skip & ((target < 0) | (target >= c))
        t = np.where(skip | bad, 0, target)
        loss[...] = np.where(skip, 0, np.log(total[:, 0]) - shifted[np.arange(len(rows)), t])
        count[...] = np.where(skip, 0, 1)
        return p, loss, count, bad

    def sgd_momentum_step(g, lr, momentum, weight_decay, p, buf):
        d = g + weight_decay * p
        buf[...] = momentum * buf + d
        p[...] = p - lr * buf

    def adam_step(g, step_size, beta1, beta2, eps, weight_decay, decay, bias2, p, m, v):
        p[...] = p * decay
        d = g + weight_decay * p
        m[...] = beta1 * m + (1 - beta1) * d
        v[...] = beta2 * v + (1 - beta2) * (d * d)
        p[...] = p - step_size * (m / (np.sqrt(v) / bias2 + eps))

    return {
        "minitorch_adam_step": adam_step,
        "minitorch_softmax_xent_forward": softmax_xent_forward,
        "minitorch_sgd_momentum_step": sgd_momentum_step,
        "minitorch_relu_forward": relu_forward,
        "minitorch_relu_backward": relu_backward,
        "minitorch_bias_relu_forward": bias_relu_forward,
        "minitorch_softmax_xent_backward": softmax_xent_backward,
    }


class FakeElementwiseKernel:
    """Runs a known MiniTorch kernel's NumPy twin, checking CuPy's type rule for ``T``."""

    compiled = []  # names of kernels "compiled" (called) so far, for tests to inspect

    def __init__(self, in_params, out_params, operation, name, nvrtc=True):
        self.params = [p.split()[-2:] for p in in_params.split(",")]  # (type, name); "raw T x" too
        self.name = name
        self.nvrtc = nvrtc
        self.body = _fake_kernel_bodies()[name]

    def __call__(self, *args):
        if not self.nvrtc:
            raise RuntimeError("fake cupy: NVRTC is missing, cannot compile " + self.name)
        typed = {np.dtype(a.dtype) for (t, _), a in zip(self.params, args) if t == "T" and hasattr(a, "dtype")}
        if len(typed) > 1:
            raise TypeError(f"fake cupy: type T of {self.name} is ambiguous: {sorted(map(str, typed))}")
        for (t, _), a in zip(self.params, args):
            if t != "T" and hasattr(a, "dtype") and isinstance(a, np.ndarray) and a.dtype != np.dtype(t):
                raise TypeError(f"fake cupy: {self.name} expects {t}, got {a.dtype}")
            if isinstance(a, np.ndarray) and not isinstance(a, FakeDeviceArray):
                raise TypeError(f"fake cupy: {self.name} got a host numpy.ndarray")
        FakeElementwiseKernel.compiled.append(self.name)
        LAUNCHES[self.name] += 1
        return _device(self.body(*[_host(a) for a in args]))


# Module functions that only look at shapes or make views: no kernel launch in CuPy.
_NO_LAUNCH = {"broadcast_to", "broadcast_shapes", "shape", "ndim", "result_type", "promote_types", "can_cast",
              "expand_dims", "squeeze", "moveaxis", "swapaxes", "transpose", "reshape", "isscalar", "dtype"}


class FakeCupy(types.ModuleType):
    """A module object that MiniTorch's backend takes for ``cupy``."""

    def __init__(self, devices=1, nvrtc=True, curand=True):
        super().__init__("cupy")
        self.__version__ = "0.0-fake"
        self.ndarray = FakeDeviceArray
        self._nvrtc = nvrtc
        self._pool = _MemoryPool()
        self.allocator = None
        fake = self

        def get_device_count():
            if devices is None or devices < 0:
                raise FakeCUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
            return devices

        class Device:
            def synchronize(self):
                fake.synchronized = getattr(fake, "synchronized", 0) + 1

        def set_allocator(fn):
            fake.allocator = fn

        class Graph:
            """What ``Stream.end_capture`` returns: ``launch`` counts replays."""

            def __init__(self):
                self.launches = 0

            def launch(self, stream=None):
                self.launches += 1
                LAUNCHES["graph"] += 1

        class Stream:
            """A stream that can be entered and can 'capture' (it records only that it did)."""

            def __init__(self, non_blocking=False):
                self.capturing = False
                self.captures = 0

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def synchronize(self):
                pass

            def begin_capture(self):
                self.capturing = True

            def end_capture(self):
                self.capturing = False
                self.captures += 1
                return Graph()

        class MemoryPool(_MemoryPool):
            pass

        @contextlib.contextmanager
        def using_allocator(fn):
            previous, fake.allocator = fake.allocator, fn
            try:
                yield
            finally:
                fake.allocator = previous

        runtime = types.SimpleNamespace(
            getDeviceCount=get_device_count,
            getDeviceProperties=lambda i: {"name": b"Fake GPU"},
        )
        self.cuda = types.SimpleNamespace(runtime=runtime, Device=Device, set_allocator=set_allocator, Stream=Stream,
                                          MemoryPool=MemoryPool, using_allocator=using_allocator, Graph=Graph)
        strided = np.lib.stride_tricks.as_strided
        self.lib = types.SimpleNamespace(
            stride_tricks=types.SimpleNamespace(
                as_strided=lambda x, shape=None, strides=None: strided(x, shape, strides, subok=True)
            )
        )
        self.seeds = []  # what cupy.random.seed was called with
        generator = [np.random.default_rng(0)]

        def random(size=None, dtype=float):
            if not curand:
                raise RuntimeError("fake cupy: libcurand.so.10: cannot open shared object file")
            LAUNCHES["random"] += 1
            return _device(generator[0].random(size, dtype=dtype))

        def seed(value=None):
            self.seeds.append(value)
            generator[0] = np.random.default_rng(value)

        self.random = types.SimpleNamespace(random=random, seed=seed)

    def get_default_memory_pool(self):
        return self._pool

    def asarray(self, value, dtype=None):
        return _upload(value, dtype)  # a copy to device memory needs no compiled kernel

    def take(self, a, indices, axis=None, out=None):
        """``cupy.take``: out-of-range indices wrap around (NumPy's ``mode="wrap"``), unchecked."""
        if not self._nvrtc:
            raise RuntimeError("fake cupy: NVRTC is missing, cannot compile take")
        LAUNCHES["take"] += 1
        return _device(np.take(_host(a), _host(indices), axis=axis, mode="wrap"))

    def argsort(self, a, axis=-1, kind=None):
        """``cupy.argsort``: always stable; ``kind`` may only be None or "stable" (NumPy has more)."""
        if kind not in (None, "stable"):
            raise ValueError("kind can only be None or 'stable'")
        return self.__getattr__("argsort")(a, axis=axis, kind="stable")

    def unique(self, ar, *args, axis=None, **kwargs):
        """``cupy.unique``: along an ``axis`` it compares slices by subtracting them, which CuPy
        refuses for bool arrays (TypeError: boolean subtract), where NumPy's unique works."""
        if axis is not None and np.dtype(ar.dtype) == bool:
            raise TypeError("cupy boolean subtract, the `-` operator, is deprecated, use the bitwise_xor, "
                            "the `^` operator, or the logical_xor function instead.")
        return self.__getattr__("unique")(ar, *args, axis=axis, **kwargs)

    def ElementwiseKernel(self, in_params, out_params, operation, name="kernel"):  # noqa: N802
        return FakeElementwiseKernel(in_params, out_params, operation, name, nvrtc=self._nvrtc)

    def __getattr__(self, name):
        attr = getattr(np, name)
        if isinstance(attr, type) or not callable(attr):
            return attr
        nvrtc = self._nvrtc

        def call(*args, **kwargs):
            if not nvrtc:  # CuPy builds even arange and ufuncs as kernels compiled by NVRTC
                raise RuntimeError(f"fake cupy: NVRTC is missing, cannot compile {name}")
            if name not in _NO_LAUNCH:
                LAUNCHES[name] += 1
            return _device(attr(*_host(args), **{k: _host(v) for k, v in kwargs.items()}))

        return call
