"""A stand-in for CuPy, for testing the GPU backend's logic on a machine without a GPU.

``FakeCupy`` looks like the ``cupy`` module to MiniTorch: arrays of class
``FakeDeviceArray`` (a NumPy array that says it lives on the device) come out of every
function, ``.get()`` copies to the host, ``scatter_add`` adds at repeated indices, and
the memory-pool and runtime calls answer. Like real CuPy, mixing a device array with a
plain NumPy array in arithmetic is a ``TypeError``, so an op that builds a host array
and combines it with device data fails here as it would on a GPU. Also as in CuPy: an
out-of-range integer array index wraps around instead of raising, and indexing one element
gives a 0-d device array, not a host scalar.

The fake answers to the installed CuPy (``cupy_api.py``; ``make setup`` installs it with the
``gpu-compile`` extra): every ``cupy.*``, ``cupy.cuda.*``, ``cupyx.*`` function and every
``cupy.ndarray`` method called through the fake must exist in that CuPy and its arguments
must bind to CuPy's signature; a ufunc method CuPy does not implement (``multiply.at``,
``maximum.reduce``) raises its ``NotImplementedError``; a NumPy function applied to a device
array works only where CuPy has the same function (``__array_function__``), else it is the
``TypeError`` real CuPy gives. Each ``ElementwiseKernel`` call generates the CUDA source
real CuPy would compile for those arguments and compiles it with NVRTC (``cuda_source.py``),
before running the kernel's NumPy twin.

Host-device synchronisations are counted in ``SYNCS`` by kind: ``get()``, ``item()``,
``float()``/``int()``/``bool()``, printing, ``synchronize()`` of a device, stream or event, a
boolean-mask index and ``nonzero``-like functions (whose output size CuPy must read back).
``Event.done`` is False until a sync happens after ``record()``: the fake's GPU never
finishes on its own, which is what ``minitorch.cuda.syncs`` needs to see a sync. A sync while
a stream is capturing a CUDA graph raises, as CUDA does.

What it cannot catch: ``np.asarray(device_array)`` (NumPy converts an ndarray subclass
without asking it; real CuPy refuses). The real-GPU tests (``bench/gpu_check.sh``) cover that.

Several variants model the three ways a GPU can be unusable: ``FakeCupy(devices=0)``
(no device: ``getDeviceCount`` raises like CUDA without a driver) and
``FakeCupy(nvrtc=False)`` (kernels cannot compile), ``FakeCupy(curand=False)`` (a CUDA
library is missing). ``install(monkeypatch, fake)`` puts it (and its ``cupyx``) in ``sys.modules``.
"""

import collections
import contextlib
import sys
import types

import cuda_source
import cupy_api
import numpy as np

# Kernel launches a real CuPy would make, counted by kind ("multiply", "sum", "zeros_like",
# "gather", the name of an ElementwiseKernel...). Approximate: every ufunc call, module
# function, method that makes a new array, advanced-indexing gather/scatter, copy and cast
# counts one launch; views (reshape, transpose, basic slices) count none. Tests clear it
# and read ``sum(LAUNCHES.values())`` around a training step.
LAUNCHES = collections.Counter()
# Host-device synchronisations, by kind ("get", "item", "float", "mask", "device"...).
SYNCS = collections.Counter()
_CAPTURING = []  # the fake streams capturing a graph now


class FakeCUDARuntimeError(RuntimeError):
    """What CuPy raises when CUDA has no driver or device."""


def sync(kind):
    """Count one host-device synchronisation; refused while a graph is being captured."""
    if _CAPTURING:
        raise RuntimeError(f"fake cupy: a {kind} synchronises with the device, which a stream capturing a "
                           "CUDA graph refuses (cudaErrorStreamCaptureUnsupported)")
    SYNCS[kind] += 1


def total_syncs():
    """All synchronisations so far."""
    return sum(SYNCS.values())


def _has_array_index(index):
    """True when ``index`` holds an integer or boolean array (a gather/scatter kernel in CuPy)."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, (np.ndarray, list)) for p in parts)


def _has_mask(index):
    """True when ``index`` holds a boolean array: CuPy reads the number of True values back (a sync)."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, np.ndarray) and p.dtype == bool for p in parts)


def _refuse_host_arrays(what, values):
    for value in values:
        if isinstance(value, (list, tuple)):
            _refuse_host_arrays(what, value)
        elif isinstance(value, np.ndarray) and not isinstance(value, FakeDeviceArray):
            raise TypeError(f"fake cupy: {what} got a host numpy.ndarray mixed with device arrays "
                            "(real CuPy refuses this too)")


# ---------------------------------------------------------------------- ufuncs, as CuPy implements them
def _real_ufunc(name):
    """CuPy's ufunc ``name`` (cupy.X or cupyx.scipy.special.X), None when CuPy has none, MISSING without CuPy."""
    if cupy_api.real() is None:
        return cupy_api.MISSING
    for path in (f"cupy.{name}", f"cupyx.scipy.special.{name}"):
        obj = cupy_api.lookup(path)
        if obj is not cupy_api.MISSING:
            return obj
    return None


def _check_ufunc_method(name, method, kwargs):
    """Raise what CuPy raises for ``ufunc.method`` with these keyword arguments."""
    real = _real_ufunc(name)
    if real is cupy_api.MISSING:
        return
    if real is None:
        raise TypeError(f"fake cupy: numpy.{name} on a device array: CuPy has no ufunc {name!r}, so real CuPy "
                        "gives TypeError (operand type(s) all returned NotImplemented)")
    cupy_name = getattr(real, "name", f"cupy_{name}")
    if method == "__call__":
        unknown = set(kwargs) - {"out", "dtype", "casting"}
        if unknown:
            raise TypeError(f"fake cupy: {name}() got {sorted(unknown)}: CuPy ufuncs take only out, dtype and "
                            f"casting (Wrong arguments {sorted(unknown)})")
    elif method == "at" and getattr(real, "_scatter_op", None) is None:
        raise NotImplementedError(f"`{cupy_name}.at` is not supported yet")
    elif method in ("reduce", "accumulate") and cupy_name not in ("cupy_add", "cupy_multiply"):
        raise NotImplementedError(f"`{cupy_name}.{method}` is not supported yet")
    elif method == "reduceat" and cupy_name != "cupy_add":
        raise NotImplementedError(f"`{cupy_name}.reduceat` is not supported yet")


class FakeUfunc:
    """``cupy.<ufunc>``: NumPy's ufunc on device arrays, with CuPy's rules for its methods."""

    def __init__(self, name, nvrtc=True):
        self.__name__ = name
        self._np = getattr(np, name)
        self._nvrtc = nvrtc
        self.nin, self.nout = self._np.nin, self._np.nout

    def _run(self, method, args, kwargs):
        if not self._nvrtc:
            raise RuntimeError(f"fake cupy: NVRTC is missing, cannot compile {self.__name__}")
        out = kwargs.get("out")
        _refuse_host_arrays(self.__name__, list(args) + ([] if out is None else list(out if isinstance(out, tuple)
                                                                                      else (out,))))
        _check_ufunc_method(self.__name__, method, kwargs)
        LAUNCHES[self.__name__ if method == "__call__" else f"{self.__name__}.{method}"] += 1
        if "out" in kwargs and not isinstance(kwargs["out"], tuple):
            kwargs = dict(kwargs, out=(kwargs["out"],))
        kwargs = {k: _host(v) for k, v in kwargs.items()}
        func = self._np if method == "__call__" else getattr(self._np, method)
        return _device(func(*_host(args), **kwargs))

    def __call__(self, *args, **kwargs):
        return self._run("__call__", args, kwargs)

    def at(self, a, indices, b=None):
        _check_ufunc_method(self.__name__, "at", {})
        LAUNCHES[f"{self.__name__}.at"] += 1
        args = (_host(a), _wrapped(_host(indices), a.shape)) + (() if b is None else (_host(b),))
        self._np.at(*args)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        return self._run("reduce", (array,), dict(axis=axis, dtype=dtype, keepdims=keepdims,
                                                 **({} if out is None else {"out": out})))

    def accumulate(self, array, axis=0, dtype=None, out=None):
        return self._run("accumulate", (array,), dict(axis=axis, dtype=dtype, **({} if out is None else {"out": out})))

    def outer(self, a, b, **kwargs):
        return self._run("outer", (a, b), kwargs)


# ---------------------------------------------------------------------- device arrays
class FakeDeviceArray(np.ndarray):
    """A NumPy array that pretends to live in GPU memory."""

    def get(self, stream=None, order="C", out=None, blocking=True):
        """Copy to the host, as ``cupy.ndarray.get()``: waits for the device (a sync)."""
        sync("get")
        host = np.array(self.view(np.ndarray), copy=True, order=order)
        if out is not None:
            out[...] = host
            return out
        return host

    def scatter_add(self, slices, value):
        """``self[slices] += value`` with repeated indices adding up (CuPy's atomics)."""
        LAUNCHES["scatter_add"] += 1
        np.add.at(self.view(np.ndarray), _wrapped(_host(slices), self.shape), _host(value))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _refuse_host_arrays(ufunc.__name__, inputs + tuple(kwargs.get("out", ()) or ()))
        _check_ufunc_method(ufunc.__name__, method, {k: v for k, v in kwargs.items() if k != "out"}
                            if method == "__call__" else kwargs)
        LAUNCHES[ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"] += 1
        host_inputs = tuple(_host(v) for v in inputs)
        if method == "at":
            host_inputs = (host_inputs[0], _wrapped(host_inputs[1], inputs[0].shape), *host_inputs[2:])
        if "out" in kwargs:
            kwargs["out"] = tuple(_host(v) for v in kwargs["out"])
        result = getattr(ufunc, method)(*host_inputs, **kwargs)
        return _device(result)

    def __array_function__(self, func, types, args, kwargs):
        """A NumPy function on device arrays: CuPy's function of the same name, or CuPy's TypeError."""
        module = func.__module__.split(".")[1:] if func.__module__ else []
        path = ".".join(["cupy", *[m for m in module if not m.startswith("_")], func.__name__])
        if cupy_api.real() is not None:
            if cupy_api.lookup(path) is cupy_api.MISSING:
                raise TypeError(f"fake cupy: numpy.{func.__name__} was called on a device array, and CuPy has no "
                                f"{path}: real CuPy gives TypeError (no implementation found)")
            cupy_api.check_call(path, args, kwargs)
        if func.__name__ in _SYNCING:
            sync(func.__name__)
        if func.__name__ not in _NO_LAUNCH:
            LAUNCHES[func.__name__] += 1
        return _device(func(*_host(args), **{k: _host(v) for k, v in kwargs.items()}))

    def __getitem__(self, index):
        if _has_mask(index):
            sync("mask")
        if _has_array_index(index):
            LAUNCHES["gather"] += 1
        # One element is a 0-d device array in CuPy, not a host scalar as NumPy gives.
        return _device(super().__getitem__(_wrapped(_host(index), self.shape)))

    def __setitem__(self, index, value):
        if _has_mask(index):
            sync("mask")
        LAUNCHES["scatter" if _has_array_index(index) else "fill"] += 1
        super().__setitem__(_wrapped(_host(index), self.shape), _host(value))

    # Reading a value on the host waits for the device.
    def item(self, *args):
        sync("item")
        return self.view(np.ndarray).item(*args)

    def tolist(self):
        sync("tolist")
        return self.view(np.ndarray).tolist()

    def __float__(self):
        sync("float")
        return float(self.view(np.ndarray))

    def __int__(self):
        sync("int")
        return int(self.view(np.ndarray))

    def __index__(self):
        sync("index")
        return self.view(np.ndarray).__index__()

    def __bool__(self):
        sync("bool")
        return bool(self.view(np.ndarray))

    def __complex__(self):
        sync("complex")
        return complex(self.view(np.ndarray))

    def __repr__(self):
        sync("repr")
        return repr(self.view(np.ndarray))

    def __str__(self):
        sync("str")
        return str(self.view(np.ndarray))


# Methods that are not kernels, or that the class above writes itself.
_OWN_METHODS = {"get", "scatter_add", "item", "tolist", "view"}


def _answer_to_cupy_ndarray():
    """Make each public method of FakeDeviceArray answer to ``cupy.ndarray``'s.

    A method CuPy lacks (``resize``, ``setflags``...) becomes an AttributeError. Every other
    method checks its arguments against CuPy's signature, then runs NumPy's method on the
    host view (so NumPy's own helpers never see a device array) and counts a launch unless
    the result is a view of the same memory. Without CuPy installed only the last part is done.
    """
    real = cupy_api.lookup("cupy.ndarray")
    for name in dir(np.ndarray):
        if name.startswith("_") or name in _OWN_METHODS:
            continue
        real_method = None if real is cupy_api.MISSING else getattr(real, name, cupy_api.MISSING)
        if real_method is cupy_api.MISSING:
            setattr(FakeDeviceArray, name, _missing(name))
            continue
        method = getattr(np.ndarray, name)
        if callable(method) and not isinstance(method, type):
            setattr(FakeDeviceArray, name, _checked_method(name, method, real_method))
    if real is not cupy_api.MISSING:
        for name in _OWN_METHODS - {"view"}:  # the fake's own versions: checked too
            setattr(FakeDeviceArray, name, _checked_own(name, getattr(FakeDeviceArray, name), getattr(real, name)))


def _missing(name):
    def refuse(self):
        raise AttributeError(f"fake cupy: cupy.ndarray has no attribute {name!r} (NumPy's ndarray has it; "
                             "real CuPy does not)")

    return property(refuse)


def _checked_own(name, method, real):
    def checked(self, *args, **kwargs):
        cupy_api.check_call(f"cupy.ndarray.{name}", args, kwargs, obj=real)
        return method(self, *args, **kwargs)

    checked.__name__ = name
    return checked


def _checked_method(name, method, real):
    def checked(self, *args, **kwargs):
        if real is not None:
            cupy_api.check_call(f"cupy.ndarray.{name}", args, kwargs, obj=real)
        host = self.view(np.ndarray)
        result = method(host, *_host(args), **{k: _host(v) for k, v in kwargs.items()})
        if name in _SYNCING:
            sync(name)
        if not (isinstance(result, np.ndarray) and np.shares_memory(result, host)):
            LAUNCHES[name] += 1  # a new array (or an in-place pass): a kernel in CuPy
        return _device(result)  # a NumPy scalar becomes a 0-d device array, as CuPy returns

    checked.__name__ = name
    return checked


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


# ---------------------------------------------------------------------- runtime objects
def _answering(path):
    """Class decorator: the class stands for CuPy's ``path``; its public methods (and constructor)
    must exist there and are called with arguments CuPy's signatures accept."""

    def decorate(cls):
        real = cupy_api.lookup(path)
        if real is cupy_api.MISSING:
            return cls
        init = cls.__init__

        def checked_init(self, *args, **kwargs):
            cupy_api.check_call(path, args, kwargs, obj=real)
            init(self, *args, **kwargs)

        cls.__init__ = checked_init
        for name, member in list(vars(cls).items()):
            if name.startswith("_") or not callable(member):
                continue
            if not hasattr(real, name):
                raise AttributeError(f"fake cupy: the fake {path} has {name}(), which the installed CuPy lacks")
            setattr(cls, name, _checked_member(path, name, member, getattr(real, name)))
        return cls

    return decorate


def _checked_member(path, name, member, real):
    def checked(self, *args, **kwargs):
        cupy_api.check_call(f"{path}.{name}", args, kwargs, obj=real)
        return member(self, *args, **kwargs)

    checked.__name__ = name
    return checked


def _checked_function(path, function):
    """``function`` standing for CuPy's ``path``: it must exist there, and calls must bind to it."""
    real = cupy_api.require(path)

    def checked(*args, **kwargs):
        cupy_api.check_call(path, args, kwargs, obj=real)
        return function(*args, **kwargs)

    checked.__name__ = path.rpartition(".")[2]
    return checked


class _Namespace(types.SimpleNamespace):
    """A fake submodule (``cupy.cuda``, ``cupy.random``...): each function answers to CuPy's."""

    def __init__(self, path, **members):
        checked = {}
        for name, member in members.items():
            if callable(member) and not isinstance(member, (type, _Namespace)):
                member = _checked_function(f"{path}.{name}", member)
            elif cupy_api.real() is not None:
                cupy_api.require(f"{path}.{name}")
            checked[name] = member
        super().__init__(**checked)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name):
        raise AttributeError(f"fake cupy: {self._path}.{name} is not modelled by the fake"
                             + ("" if cupy_api.lookup(f"{self._path}.{name}") is not cupy_api.MISSING
                                else " (and the installed CuPy has no such name)"))


@_answering("cupy.cuda.MemoryPool")
class MemoryPool:
    """The memory-pool calls MiniTorch makes, with fixed byte counts."""

    def __init__(self, allocator=None):
        self.freed = 0

    def used_bytes(self):
        return 4096

    def total_bytes(self):
        return 8192

    def free_all_blocks(self, stream=None):
        self.freed += 1

    def malloc(self, size):
        return size


@_answering("cupy.cuda.Device")
class Device:
    """``cupy.cuda.Device``: synchronising it is counted (the fake's ``synchronized``)."""

    fake = None  # set per FakeCupy

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)

    def synchronize(self):
        sync("device")
        if Device.fake is not None:
            Device.fake.synchronized = getattr(Device.fake, "synchronized", 0) + 1

    def use(self):
        pass


@_answering("cupy.cuda.Graph")
class Graph:
    """What ``Stream.end_capture`` returns: ``launch`` counts replays."""

    def __init__(self):
        self.launches = 0

    def launch(self, stream=None):
        self.launches += 1
        LAUNCHES["graph"] += 1


@_answering("cupy.cuda.Stream")
class Stream:
    """A stream that can be entered and can 'capture' (it records only that it did)."""

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
        self.capturing = False
        self.captures = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        sync("stream")

    def begin_capture(self, mode=None):
        self.capturing = True
        _CAPTURING.append(self)

    def end_capture(self):
        if self in _CAPTURING:
            _CAPTURING.remove(self)
        self.capturing = False
        self.captures += 1
        return Graph()


@_answering("cupy.cuda.Event")
class Event:
    """``cupy.cuda.Event``: ``done`` only once a sync has happened since ``record()``.

    The fake's device never finishes work on its own, so an event recorded after queued work
    completes exactly when the host waits for the device: what ``minitorch.cuda.syncs`` reads.
    """

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self._recorded_at = None

    def record(self, stream=None):
        self._recorded_at = total_syncs()

    def synchronize(self):
        sync("event")

    @property
    def done(self):
        return self._recorded_at is None or total_syncs() > self._recorded_at


# ---------------------------------------------------------------------- kernels
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
        acc = np.float32 if rows.dtype == np.float16 else rows.dtype  # float16 is summed in float
        rows = rows.astype(acc)
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

    def spin(ns, elapsed):
        elapsed[...] = ns  # the fake's device has no clock: it reports the time it was asked to spin

    return {
        "minitorch_adam_step": adam_step,
        "minitorch_softmax_xent_forward": softmax_xent_forward,
        "minitorch_sgd_momentum_step": sgd_momentum_step,
        "minitorch_relu_forward": relu_forward,
        "minitorch_relu_backward": relu_backward,
        "minitorch_bias_relu_forward": bias_relu_forward,
        "minitorch_softmax_xent_backward": softmax_xent_backward,
        "minitorch_spin": spin,
    }


class FakeElementwiseKernel:
    """Compiles the CUDA source real CuPy would (``cuda_source``), then runs the kernel's NumPy twin."""

    compiled = []  # names of kernels called so far, for tests to inspect
    calls = []  # the ``cuda_source.KernelCall`` of every call (its signature), in order

    def __init__(self, in_params, out_params, operation, name="kernel", nvrtc=True):
        self.spec = (in_params, out_params, operation, name)
        self.params = [p.split()[-2:] for p in in_params.split(",")]  # (type, name); "raw T x" too
        self.name = name
        self.nvrtc = nvrtc
        self.body = _fake_kernel_bodies()[name]

    def __call__(self, *args, **kwargs):
        if not self.nvrtc:
            raise RuntimeError("fake cupy: NVRTC is missing, cannot compile " + self.name)
        unknown = set(kwargs) - {"size", "stream", "block_size"}
        if unknown:
            raise TypeError(f"Wrong arguments {sorted(unknown)}")  # CuPy's ElementwiseKernel.__call__
        for a in args:
            if isinstance(a, np.ndarray) and not isinstance(a, FakeDeviceArray):
                raise TypeError(f"fake cupy: {self.name} got a host numpy.ndarray")
        if cuda_source.real_cupy() is not None:
            call = cuda_source.kernel_call(self.spec, args)  # CuPy's type and shape rules
            if call is not None:
                FakeElementwiseKernel.calls.append(call)
                if cuda_source.compile_enabled():
                    cuda_source.compile_call(call)  # the real CUDA source, through NVRTC
        else:  # no CuPy to ask: the type rule for T checked here
            typed = {np.dtype(a.dtype) for (t, _), a in zip(self.params, args) if t == "T" and hasattr(a, "dtype")}
            if len(typed) > 1:
                raise TypeError(f"fake cupy: type T of {self.name} is ambiguous: {sorted(map(str, typed))}")
            for (t, _), a in zip(self.params, args):
                if t != "T" and isinstance(a, np.ndarray) and a.dtype != np.dtype(t):
                    raise TypeError(f"fake cupy: {self.name} expects {t}, got {a.dtype}")
        FakeElementwiseKernel.compiled.append(self.name)
        LAUNCHES[self.name] += 1
        return _device(self.body(*[_host(a) for a in args]))


# Module functions that only look at shapes or make views: no kernel launch in CuPy.
_NO_LAUNCH = {"broadcast_to", "broadcast_shapes", "shape", "ndim", "result_type", "promote_types", "can_cast",
              "expand_dims", "squeeze", "moveaxis", "swapaxes", "transpose", "reshape", "isscalar", "dtype",
              "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "ravel"}
# Functions whose output size depends on the data: CuPy reads a count back from the device.
_SYNCING = {"nonzero", "argwhere", "flatnonzero", "unique", "extract", "compress", "asnumpy", "tolist"}


class FakeCupyx(types.ModuleType):
    """``cupyx`` as MiniTorch uses it: ``cupyx.scipy.special`` (erf)."""

    def __init__(self):
        super().__init__("cupyx")
        special = types.ModuleType("cupyx.scipy.special")
        special.erf = _SpecialUfunc("erf")
        self.scipy = types.ModuleType("cupyx.scipy")
        self.scipy.special = special


class _SpecialUfunc:
    """A ``cupyx.scipy.special`` ufunc, computed with SciPy on the host view when SciPy is there."""

    def __init__(self, name):
        self.__name__ = name
        cupy_api.require(f"cupyx.scipy.special.{name}")

    def __call__(self, x):
        from scipy import special

        LAUNCHES[self.__name__] += 1
        return _device(getattr(special, self.__name__)(_host(x)))


def modules(fake):
    """The ``sys.modules`` entries that make ``fake`` CuPy: ``cupy`` and its ``cupyx``."""
    return {"cupy": fake, "cupyx": fake.cupyx, "cupyx.scipy": fake.cupyx.scipy,
            "cupyx.scipy.special": fake.cupyx.scipy.special}


def install(monkeypatch, fake=None):
    """Make ``fake`` (a new FakeCupy by default) the ``cupy`` (and ``cupyx``) of one test; returns it."""
    fake = FakeCupy() if fake is None else fake
    for name, module in modules(fake).items():
        monkeypatch.setitem(sys.modules, name, module)
    return fake


def _answers_to(path):
    """Decorator for a method of FakeCupy standing for CuPy's ``path``: arguments checked against
    CuPy's signature first (a TypeError naming CuPy), before the fake's own signature."""

    def decorate(method):
        def checked(self, *args, **kwargs):
            cupy_api.check_call(path, args, kwargs)
            return method(self, *args, **kwargs)

        checked.__name__, checked.__doc__ = method.__name__, method.__doc__
        return checked

    return decorate


class FakeCupy(types.ModuleType):
    """A module object that MiniTorch's backend takes for ``cupy``."""

    def __init__(self, devices=1, nvrtc=True, curand=True):
        super().__init__("cupy")
        self.__version__ = "0.0-fake"
        self.ndarray = FakeDeviceArray
        self._nvrtc = nvrtc
        self._pool = MemoryPool()
        self.allocator = None
        self.synchronized = 0
        self.cupyx = FakeCupyx()
        fake = self
        Device.fake = self

        def getDeviceCount():  # noqa: N802 - CUDA's name
            if devices is None or devices < 0:
                raise FakeCUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
            return devices

        def set_allocator(allocator=None):
            fake.allocator = allocator

        @contextlib.contextmanager
        def using_allocator(allocator=None):
            previous, fake.allocator = fake.allocator, allocator
            try:
                yield
            finally:
                fake.allocator = previous

        def deviceSynchronize():  # noqa: N802 - CUDA's name
            sync("device")

        runtime = _Namespace(
            "cupy.cuda.runtime",
            getDeviceCount=getDeviceCount,
            getDeviceProperties=lambda device: {"name": b"Fake GPU"},
            deviceSynchronize=deviceSynchronize,
        )
        self.cuda = _Namespace("cupy.cuda", runtime=runtime, Device=Device, set_allocator=set_allocator,
                               Stream=Stream, Event=Event, MemoryPool=MemoryPool, using_allocator=using_allocator,
                               Graph=Graph)
        strided = np.lib.stride_tricks.as_strided
        self.lib = _Namespace("cupy.lib", stride_tricks=_Namespace(
            "cupy.lib.stride_tricks",
            as_strided=lambda x, shape=None, strides=None: strided(x, shape, strides, subok=True),
        ))
        self.seeds = []  # what cupy.random.seed was called with
        generator = [np.random.default_rng(0)]

        def random(size=None, dtype=float):
            if not curand:
                raise RuntimeError("fake cupy: libcurand.so.10: cannot open shared object file")
            LAUNCHES["random"] += 1
            return _device(generator[0].random(size, dtype=dtype))

        def seed(seed=None):
            self.seeds.append(seed)
            generator[0] = np.random.default_rng(seed)

        self.random = _Namespace("cupy.random", random=random, seed=seed)

    def get_default_memory_pool(self):
        return self._pool

    @_answers_to("cupy.asarray")
    def asarray(self, a, dtype=None, order=None, *, copy=None, blocking=False):
        return _upload(a, dtype)  # a copy to device memory needs no compiled kernel

    @_answers_to("cupy.asnumpy")
    def asnumpy(self, a, stream=None, order="C", out=None, *, blocking=True):
        return a.get() if isinstance(a, FakeDeviceArray) else np.asarray(a)

    @_answers_to("cupy.take")
    def take(self, a, indices, axis=None, out=None):
        """``cupy.take``: out-of-range indices wrap around (NumPy's ``mode="wrap"``), unchecked."""
        if not self._nvrtc:
            raise RuntimeError("fake cupy: NVRTC is missing, cannot compile take")
        LAUNCHES["take"] += 1
        return _device(np.take(_host(a), _host(indices), axis=axis, mode="wrap"))

    @_answers_to("cupy.argsort")
    def argsort(self, a, axis=-1, kind=None):
        """``cupy.argsort``: always stable; ``kind`` may only be None or "stable" (NumPy has more)."""
        if kind not in (None, "stable"):
            raise ValueError("kind can only be None or 'stable'")
        return self.__getattr__("argsort")(a, axis=axis, kind="stable")

    @_answers_to("cupy.unique")
    def unique(self, ar, *args, axis=None, **kwargs):
        """``cupy.unique``: along an ``axis`` it compares slices by subtracting them, which CuPy
        refuses for bool arrays (TypeError: boolean subtract), where NumPy's unique works."""
        if axis is not None and np.dtype(ar.dtype) == bool:
            raise TypeError("cupy boolean subtract, the `-` operator, is deprecated, use the bitwise_xor, "
                            "the `^` operator, or the logical_xor function instead.")
        return self.__getattr__("unique")(ar, *args, axis=axis, **kwargs)

    @_answers_to("cupy.ElementwiseKernel")
    def ElementwiseKernel(self, in_params, out_params, operation, name="kernel", reduce_dims=True,  # noqa: N802
                          preamble="", no_return=False, return_tuple=False, **kwargs):
        if preamble or not reduce_dims or no_return or return_tuple or kwargs:
            raise NotImplementedError("fake cupy: ElementwiseKernel options are not modelled (and cuda_source "
                                      "would not generate their source)")
        return FakeElementwiseKernel(in_params, out_params, operation, name, nvrtc=self._nvrtc)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        real = cupy_api.require(f"cupy.{name}")
        attr = getattr(np, name, cupy_api.MISSING)
        if attr is cupy_api.MISSING:
            raise AttributeError(f"fake cupy: cupy.{name} is not modelled by the fake (NumPy has no {name})")
        if isinstance(attr, np.ufunc):
            return FakeUfunc(name, nvrtc=self._nvrtc)
        if isinstance(attr, types.ModuleType):
            return _FakeSubmodule(f"cupy.{name}", attr, self._nvrtc)
        if isinstance(attr, type) or not callable(attr):
            return attr
        return _module_function(f"cupy.{name}", attr, real, self._nvrtc)


def _module_function(path, attr, real, nvrtc):
    name = path.rpartition(".")[2]

    def call(*args, **kwargs):
        cupy_api.check_call(path, args, kwargs, obj=real)
        if not nvrtc:  # CuPy builds even arange and ufuncs as kernels compiled by NVRTC
            raise RuntimeError(f"fake cupy: NVRTC is missing, cannot compile {name}")
        if name in _SYNCING:
            sync(name)
        if name not in _NO_LAUNCH:
            LAUNCHES[name] += 1
        return _device(attr(*_host(args), **{k: _host(v) for k, v in kwargs.items()}))

    call.__name__ = name
    return call


class _FakeSubmodule:
    """``cupy.linalg``, ``cupy.fft``...: NumPy's functions of the same name, answering to CuPy's."""

    def __init__(self, path, numpy_module, nvrtc):
        self._path, self._np, self._nvrtc = path, numpy_module, nvrtc

    def __getattr__(self, name):
        real = cupy_api.require(f"{self._path}.{name}")
        attr = getattr(self._np, name)
        if isinstance(attr, types.ModuleType):
            return _FakeSubmodule(f"{self._path}.{name}", attr, self._nvrtc)
        if isinstance(attr, type) or not callable(attr):
            return attr
        return _module_function(f"{self._path}.{name}", attr, real, self._nvrtc)


_answer_to_cupy_ndarray()
