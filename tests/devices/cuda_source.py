"""The CUDA source CuPy would compile for a kernel call, and NVRTC compiling it, without a GPU.

A CuPy ``ElementwiseKernel`` is compiled when it is first called: ``__call__`` looks at the
arguments (dtype, number of dimensions, contiguity, 32- or 64-bit indexing of every array,
after broadcasting and after merging contiguous dimensions), asks CuPy's code generator for
the CUDA C of that *signature* and compiles it with NVRTC. Every new signature is a new
source, and one that fails to compile fails only when a GPU user first makes that call.

This module does what ``ElementwiseKernel.__call__`` does up to the launch, on a machine
without a GPU (CuPy's ``__call__`` itself asks the driver for the current device first):

- CuPy's own pieces, imported from the installed CuPy: the parameter parser
  (``_get_param_info``), the type resolution (``_decide_params_type``), the argument
  descriptions (``_ArgInfo``), the code generator (``_get_elementwise_kernel_code``), the
  headers it prepends (``_cupy_header_list``) and its compiler options
  (``assemble_cupy_compiler_options`` + ``-ftz=true`` + ``-arch=sm_XX`` +
  ``--device-as-default-execution-space``);
- ported here, because CuPy keeps them in C (``cdef``): broadcasting the arguments and
  merging dimensions (``_broadcast``, ``_reduce_dims``), as in CuPy 14.2's ``_kernel.pyx``.

``bench/gpu_check.sh`` runs ``tests/devices/test_gpu.py``, whose ``test_source_matches_cupy``
compares this port with the source real CuPy generated for the same calls on a GPU.

Needs ``cupy-cuda12x``, ``nvidia-cuda-nvrtc-cu12`` and ``nvidia-cuda-runtime-cu12`` (the headers):
the ``gpu-compile`` extra, which ``make setup`` installs. ``toolchain()`` says what is missing.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import sys
import threading

import numpy as np

# The modules whose kernels are checked: their (in_params, out_params, body, name) tuples. The
# hand-written kernels of the fast paths, and the spin kernel of ``minitorch.cuda.syncs``.
KERNEL_MODULES = ("minitorch.kernels.cuda.sources", "minitorch.cuda.syncs")
ARCHES = ("80", "90")  # A100 and H100/H200: the compile test builds every source for both
FAKE_ARCH = "90"  # what the fake CuPy compiles each call for
INSTALL_HINT = "pip install -e '.[gpu-compile]' (or make setup)"
_INDEX_32_LIMIT = 1 << 31  # CuPy: arrays (and launches) over 2 GiB index with 64-bit integers


# ---------------------------------------------------------------------- the real CuPy
class _Installed:
    """The installed CuPy (and cupyx), loaded once, and whether NVRTC and the headers work."""

    def __init__(self):
        self.lock = threading.Lock()
        self.loaded = False
        self.cupy = self.cupyx = None
        self.import_reason = self.compile_reason = None

    def load(self):
        with self.lock:
            if not self.loaded:
                self.loaded = True
                self.cupy, self.cupyx, self.import_reason = _import_real_cupy()
                if self.cupy is not None:
                    self.compile_reason = _try_compiling()
        return self


_INSTALLED = _Installed()


def _import_real_cupy():
    """``(cupy, cupyx, None)`` or ``(None, None, why)``, imported past any fake in ``sys.modules``."""
    fakes = {}
    for name in ("cupy", "cupyx"):  # a test may have put a fake there: step around it
        module = sys.modules.get(name)
        if name in sys.modules and (module is None or not hasattr(module, "__file__")):
            fakes[name] = sys.modules.pop(name)
    try:
        cupy = importlib.import_module("cupy")
        importlib.import_module("cupy._core._kernel")
        cupyx = importlib.import_module("cupyx")
        importlib.import_module("cupyx.scipy.special")
    except Exception as exc:
        return None, None, f"CuPy is not installed ({type(exc).__name__}: {exc}); {INSTALL_HINT}"
    finally:
        for name in ("cupy", "cupyx"):
            if name in fakes:
                sys.modules[name] = fakes[name]
    return cupy, cupyx, None


def _try_compiling():
    """None when NVRTC compiles with CuPy's options here, else why not."""
    try:
        from cupy._core import core

        core.assemble_cupy_compiler_options(())
    except Exception as exc:  # RuntimeError: Failed to find CUDA headers
        return f"CuPy finds no CUDA headers (nvidia-cuda-runtime-cu12): {exc}; {INSTALL_HINT}"
    try:
        _nvrtc_compile('extern "C" __global__ void probe() {}', ("-arch=sm_80",))
    except Exception as exc:  # no libnvrtc: the plain CuPy wheel brings none
        return f"NVRTC cannot be loaded (nvidia-cuda-nvrtc-cu12): {type(exc).__name__}: {exc}; {INSTALL_HINT}"
    return None


def installed_cupy():
    """The installed CuPy module (never a fake), or None."""
    return _INSTALLED.load().cupy


def installed_cupyx():
    """The installed ``cupyx`` module (never a fake), or None."""
    return _INSTALLED.load().cupyx


def toolchain():
    """``(cupy, reason)``: the real CuPy module when kernels can be compiled here, else None and why."""
    state = _INSTALLED.load()
    reason = state.import_reason or state.compile_reason
    return (None, reason) if reason else (state.cupy, None)


def real_cupy():
    """The installed CuPy module when it can compile kernels here, else None."""
    return toolchain()[0]


# ---------------------------------------------------------------------- kernels of a module
def is_kernel_spec(value):
    """True for a kernel tuple ``(in_params, out_params, body, name)`` of strings."""
    return (isinstance(value, tuple) and len(value) == 4 and all(isinstance(v, str) for v in value)
            and value[3].isidentifier())


def kernel_specs(module):
    """``{attribute name: spec}`` for every kernel tuple the module exposes."""
    return {name: value for name, value in vars(module).items() if is_kernel_spec(value) and not name.startswith("_")}


def kernel_modules():
    """The modules of MiniTorch's hand-written kernels (``KERNEL_MODULES``)."""
    return [importlib.import_module(name) for name in KERNEL_MODULES]


# ---------------------------------------------------------------------- arguments, as CuPy sees them
@dataclasses.dataclass(frozen=True)
class ArrayArg:
    """What CuPy's kernel generator reads from one ``cupy.ndarray`` argument."""

    shape: tuple
    strides: tuple
    dtype: np.dtype
    c_contiguous: bool
    index_32_bits: bool

    @property
    def size(self):
        return math.prod(self.shape)

    @classmethod
    def of(cls, array):
        """The description of a (device) NumPy array, with CuPy's contiguity and 32-bit index rules."""
        shape, strides, dtype = tuple(array.shape), tuple(array.strides), np.dtype(array.dtype)
        low = sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0 and n > 0)
        high = sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0 and n > 0) + dtype.itemsize
        extent = 0 if 0 in shape else high - low  # the memory the view spans
        fits = max(extent, math.prod(shape) * dtype.itemsize) <= _INDEX_32_LIMIT
        return cls(shape, strides, dtype, _c_contiguous(shape, strides, dtype.itemsize), fits)

    def view(self, shape, strides, update_c_contiguity):
        """CuPy's ``_ndarray_base._view``: the flags are inherited unless recomputed."""
        shape, strides = tuple(shape), tuple(strides)
        c = _c_contiguous(shape, strides, self.dtype.itemsize) if update_c_contiguity else self.c_contiguous
        return ArrayArg(shape, strides, self.dtype, c, self.index_32_bits)


@dataclasses.dataclass(frozen=True)
class ScalarArg:
    """A Python or NumPy scalar argument (CuPy's ``CScalar``)."""

    value: object


def _c_contiguous(shape, strides, itemsize):
    """CuPy's ``internal.get_c_contiguity``."""
    if len(strides) == 0 or (len(strides) == 1 and strides[0] == itemsize):
        return True
    previous, runs, stride = -1, 0, 0
    for i, n in enumerate(shape):
        if n == 0:
            return True
        if n == 1:
            continue
        stride = strides[i]
        if previous == -1 or strides[previous] != n * stride:
            runs += 1
        previous = i
    return runs == 0 or (runs == 1 and stride == itemsize)


def describe(value):
    """An ``ArrayArg`` for an array (anything with shape, strides and dtype), else a ``ScalarArg``."""
    if isinstance(value, (ArrayArg, ScalarArg)):
        return value
    if isinstance(value, np.ndarray):  # a (fake) device array; a 0-d one too, as in CuPy
        return ArrayArg.of(value)
    cupy = installed_cupy()
    if cupy is not None and isinstance(value, cupy.ndarray):  # a real one (on a GPU): its own flags
        return ArrayArg(tuple(value.shape), tuple(value.strides), np.dtype(value.dtype),
                        bool(value.flags.c_contiguous), bool(value._index_32_bits))
    return ScalarArg(value)


# ---------------------------------------------------------------------- ElementwiseKernel.__call__, ported
@dataclasses.dataclass(frozen=True)
class KernelCall:
    """One kernel signature: everything the generated source depends on."""

    spec: tuple
    arginfos: tuple  # CuPy _ArgInfo of every argument and the indexer
    type_map: object  # CuPy _TypeMap (what T stands for)

    @property
    def name(self):
        return self.spec[3]

    def source(self):
        """The CUDA C CuPy compiles for this call: its headers, then the generated kernel."""
        return source_of(self)

    def with_64_bit_indexing(self):
        """The same call on arrays over 2 GiB: every array and the indexer index with 64-bit integers."""
        _kernel = real_cupy()._core._kernel
        infos = tuple(
            info if info.arg_kind == 3 else  # scalars stay
            _kernel._ArgInfo(info.arg_kind, info.type, info.dtype, info.ndim, info.c_contiguous, False)
            for info in self.arginfos
        )
        return KernelCall(self.spec, infos, self.type_map)

    def describe(self):
        """A short human description: the name, T and each argument's C type."""
        kinds = {1: "array", 2: "indexer", 3: "scalar"}
        parts = [
            f"{kinds.get(int(a.arg_kind), '?')}<{a.dtype},{a.ndim}d,{'c' if a.c_contiguous else 's'},"
            f"{'32' if a.index_32_bits else '64'}>"
            for a in self.arginfos
        ]
        return f"{self.name} {self.type_map} ({', '.join(parts)})"


def kernel_call(spec, args):
    """The ``KernelCall`` CuPy's ``ElementwiseKernel(*spec)(*args)`` compiles, or None (an empty launch).

    Raises what CuPy's ``__call__`` raises before compiling: TypeError for a wrong number of
    arguments or mismatched types, ValueError for shapes that do not broadcast.
    """
    cupy = real_cupy()
    _kernel = cupy._core._kernel
    in_params = _kernel._get_param_info(spec[0], True)
    out_params = _kernel._get_param_info(spec[1], False)
    params = in_params + out_params + _kernel._get_param_info("CIndexer _ind", False)
    nin, nargs = len(in_params), len(in_params) + len(out_params)
    if len(args) not in (nin, nargs):
        raise TypeError(f"Wrong number of arguments for {spec[3]!r}. It must be either {nin} or {nargs} "
                        f"(with outputs), but given {len(args)}.")
    args = [describe(a) for a in args]
    shape, broadcast = _broadcast(args, params)
    in_args, out_args = broadcast[:nin], args[nin:]
    in_types = tuple(a.dtype if isinstance(a, ArrayArg) else None for a in in_args)
    out_types = tuple(a.dtype for a in out_args)
    if any(not isinstance(a, ArrayArg) for a in out_args):
        raise TypeError("Output arguments type must be cupy.ndarray")
    in_types, out_types, type_map = _kernel._decide_params_type(in_params, out_params, in_types, out_types)
    if not out_args:
        if any(p.raw for p in out_params):
            raise ValueError("Output array size is Undecided")
        out_args = [ArrayArg(shape, _contiguous(shape, t), np.dtype(t), True,
                             math.prod(shape) * np.dtype(t).itemsize <= _INDEX_32_LIMIT) for t in out_types]
    else:
        for p, a in zip(out_params, out_args):
            if not p.raw and a.shape != shape:
                raise ValueError("Out shape is mismatched")
    if 0 in shape:
        return None  # CuPy returns before compiling anything
    inout = in_args + out_args
    shape = _reduce_dims(inout, params, shape)
    infos = [_arginfo(a, t) for a, t in zip(inout, in_types + out_types)]
    infos.append(_kernel._ArgInfo(2, cupy._core._carray.Indexer, None, len(shape), True,
                                  math.prod(shape) <= _INDEX_32_LIMIT))
    return KernelCall(tuple(spec), tuple(infos), type_map)


def _contiguous(shape, dtype):
    """C-order strides of ``shape`` (for the outputs CuPy allocates)."""
    strides, step = [], np.dtype(dtype).itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _arginfo(arg, dtype):
    _kernel = real_cupy()._core._kernel
    if isinstance(arg, ArrayArg):
        cupy = real_cupy()
        return _kernel._ArgInfo(1, cupy.ndarray, arg.dtype, len(arg.shape), arg.c_contiguous, arg.index_32_bits)
    return _kernel._ArgInfo(3, real_cupy()._core._scalar.CScalar, np.dtype(dtype), 0, True, True)


def _broadcast(args, params):
    """CuPy's ``_broadcast``: the shape of the launch and the non-raw arrays broadcast to it."""
    arrays = [i for i, a in enumerate(args) if isinstance(a, ArrayArg) and not params[i].raw]
    if not arrays:
        raise ValueError("Loop size is undecided.")
    shape = np.broadcast_shapes(*(args[i].shape for i in arrays))  # raises ValueError as CuPy does
    out = list(args)
    for i in arrays:
        a = args[i]
        if a.shape == shape:
            continue
        strides = [0] * len(shape)
        lead = len(shape) - len(a.shape)
        for j, n in enumerate(a.shape):
            if n == shape[lead + j]:
                strides[lead + j] = a.strides[j]
        view = a.view(shape, strides, True)
        if view.size * view.dtype.itemsize > _INDEX_32_LIMIT:
            view = dataclasses.replace(view, index_32_bits=False)
        out[i] = view
    return tuple(shape), out


def _reduce_dims(args, params, shape):
    """CuPy's ``_reduce_dims``: contiguous dimensions of the non-raw arrays merged into one."""
    if len(shape) <= 1 or not args:
        return shape
    assert len(args) > 1, "an elementwise kernel has inputs and outputs"
    ndim = len(shape)
    arrays, strided = [], []
    for i, a in enumerate(args):
        if params[i].raw or not isinstance(a, ArrayArg):
            continue
        arrays.append(i)
        if not a.c_contiguous:
            if ndim == 2:
                return shape
            strided.append(i)
    if not arrays:
        return shape
    if not strided:  # all C-contiguous: one flat dimension
        total = args[arrays[0]].size
        for i in arrays:
            args[i] = args[i].view((total,), (args[i].dtype.itemsize,), False)
        return (total,)
    merged, axes, last = list(shape), [], -1
    for ax in range(ndim):
        if merged[ax] == 1:
            continue
        if last < 0:
            last = ax
            continue
        if any(args[i].strides[ax] * merged[ax] != args[i].strides[last] for i in strided):
            axes.append(last)
        else:
            merged[ax] *= merged[last]
        last = ax
    if last >= 0:
        axes.append(last)
    if len(axes) == ndim:
        return shape
    new_shape = tuple(merged[ax] for ax in axes)
    for i in arrays:
        args[i] = args[i].view(new_shape, [args[i].strides[ax] for ax in axes], False)
    return new_shape


# ---------------------------------------------------------------------- source and NVRTC
def source_of(call):
    """CuPy's headers and ``_get_elementwise_kernel_code`` for ``call`` (no preamble, no options)."""
    cupy = real_cupy()
    params = (cupy._core._kernel._get_param_info(call.spec[0], True)
              + cupy._core._kernel._get_param_info(call.spec[1], False)
              + cupy._core._kernel._get_param_info("CIndexer _ind", False))
    code = cupy._core._kernel._get_elementwise_kernel_code(call.arginfos, call.type_map, params, call.spec[2],
                                                          call.spec[3], "")
    header = "".join(f"#include <{h}>\n" for h in cupy._core.core._cupy_header_list)
    return header + code


def compile_options(arch):
    """CuPy's NVRTC options for an ElementwiseKernel compiled for ``sm_<arch>`` (a cubin)."""
    core = real_cupy()._core.core
    return core.assemble_cupy_compiler_options(()) + (
        "-ftz=true", f"-arch=sm_{arch}", "--device-as-default-execution-space")


def _nvrtc_compile(source, options):
    from cupy.cuda import compiler

    program = compiler._NVRTCProgram(source, "minitorch_kernel.cu", method="cubin")
    return program.compile(options)[0]


_COMPILED = {}  # (source, options) -> None when it compiled, else the CompileException (this run)
_COMPILED_LOCK = threading.Lock()
STATS = {"compiled": 0, "cached": 0, "seconds": 0.0}


def compile_call(call, arch=FAKE_ARCH):
    """Compile ``call``'s source with NVRTC for ``sm_<arch>``; raises CuPy's ``CompileException``.

    Each distinct source is compiled once per process (the result, pass or fail, is kept).
    """
    import time

    source, options = call.source(), compile_options(arch)
    key = (source, options)
    with _COMPILED_LOCK:
        known = key in _COMPILED
    if not known:
        start = time.perf_counter()
        try:
            _nvrtc_compile(source, options)
            error = None
        except Exception as exc:  # CompileException (the NVRTC log is its message)
            error = exc
        with _COMPILED_LOCK:
            _COMPILED[key] = error
            STATS["compiled"] += 1
            STATS["seconds"] += time.perf_counter() - start
    else:
        STATS["cached"] += 1
    error = _COMPILED[key]
    if error is not None:
        raise error


def compile_enabled():
    """Whether the fake CuPy compiles each kernel call (not with ``MINITORCH_FAKE_COMPILE=0``)."""
    return os.environ.get("MINITORCH_FAKE_COMPILE", "1") != "0" and real_cupy() is not None
