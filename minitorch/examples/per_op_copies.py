"""The design MiniTorch does NOT use on a GPU, kept to measure what it would cost.

The MiniTorch article's framework kept every tensor in host memory and, for each op,
copied the inputs to the GPU, ran the kernel and copied the result back. Its GPU epoch
was 8.6x faster than its CPU one, against about 20x without the copies: most of the gain
went to the bus. MiniTorch keeps data resident on the device instead (``t.to("cuda")``)
and copies only when asked (``cpu()``, ``item()``, ``numpy()``, ``tolist()``).

Two context managers reproduce the other design for lesson 10 and ``bench/gpu.py``:

- ``per_op_copies(cupy)``: every op uploads its array inputs, computes with CuPy and
  downloads its output; what it saved for backward is downloaded too and uploaded again
  for backward. Tensors stay on the CPU throughout.
- ``count_transfers()``: no GPU needed. Runs the ops normally on the CPU but adds up the
  bytes that design would move across the bus, into the ``Transfers`` it yields.
- ``host_batches(x, y, order, batch)``: mini-batches gathered with NumPy, outside every op.
  Inside ``per_op_copies`` a batch taken as ``x[idx]`` would be an op, and that op would
  upload its input -- the whole dataset -- every step; the article copied only the batch.
"""

import contextlib

import numpy as np

from minitorch.autograd.registry import REGISTRY
from minitorch.kernels import use_fast_kernels
from minitorch.tensor import Tensor


class Transfers:
    """Bytes that would cross the host-device bus, counted by ``count_transfers``."""

    def __init__(self):
        self.to_device = 0  # bytes host -> device
        self.to_host = 0  # bytes device -> host
        self.copies = 0  # separate transfers (each has a fixed latency and makes Python wait)

    @property
    def total(self):
        """Bytes moved in both directions."""
        return self.to_device + self.to_host


@contextlib.contextmanager
def _staged(upload, download, xp):
    """Wrap every Function so its arrays go through ``upload``/``download`` around it."""
    originals = {}

    def up(value):
        return upload(value) if isinstance(value, np.ndarray) else value

    def wrap(forward, backward):
        def staged_forward(ctx, *args):
            ctx.xp = xp
            out = forward(ctx, *(up(a) for a in args))
            ctx.xp = np
            ctx._saved = tuple(download(s) for s in ctx._saved)
            staged = [k for k, v in ctx.__dict__.items() if _is_array(v)]
            for k in staged:
                setattr(ctx, k, download(getattr(ctx, k)))
            ctx._staged = staged
            return download(out)

        def staged_backward(ctx, grad):
            ctx.xp = xp
            ctx._saved = tuple(up(s) for s in ctx._saved)
            for k in ctx.__dict__.get("_staged", ()):
                setattr(ctx, k, up(getattr(ctx, k)))
            grads = backward(ctx, up(grad))
            ctx.xp = np
            grads = grads if isinstance(grads, tuple) else (grads,)
            return tuple(download(g) for g in grads)

        return staticmethod(staged_forward), staticmethod(staged_backward)

    for name, fn_cls in REGISTRY.items():
        if name == "ToDevice":
            continue
        originals[fn_cls] = (fn_cls.__dict__.get("forward"), fn_cls.__dict__.get("backward"))
        fn_cls.forward, fn_cls.backward = wrap(fn_cls.forward, fn_cls.backward)
    try:
        with use_fast_kernels(False):  # each op's own forward and backward: a fast kernel would skip the staging
            yield
    finally:
        for fn_cls, (forward, backward) in originals.items():
            for attr, value in (("forward", forward), ("backward", backward)):
                if value is None:
                    delattr(fn_cls, attr)  # it was inherited: uncover the base class's again
                else:
                    setattr(fn_cls, attr, value)


def _is_array(value):
    return hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "nbytes")


@contextlib.contextmanager
def per_op_copies(cupy):
    """Run every op on the GPU while all data stays on the host (the article's design)."""

    def download(value):
        return value.get() if isinstance(value, cupy.ndarray) else value

    with _staged(cupy.asarray, download, cupy):
        yield


@contextlib.contextmanager
def count_transfers():
    """Count the bytes per-op copies would move, while computing normally on the CPU."""
    transfers = Transfers()

    def upload(array):
        transfers.to_device += array.nbytes
        transfers.copies += 1
        return array

    def download(value):
        if isinstance(value, np.ndarray):
            transfers.to_host += value.nbytes
            transfers.copies += 1
        return value

    with _staged(upload, download, np):
        yield transfers


def host_batches(x, y, order, batch):
    """``(xb, yb)`` tensors of one epoch, gathered on the host with NumPy (no op, so no upload of ``x``).

    ``x``, ``y`` are NumPy arrays, ``order`` a permutation of their rows; a last partial
    batch is dropped, as the benchmark's other modes do.
    """
    for start in range(0, len(order) - batch + 1, batch):
        idx = order[start : start + batch]
        yield Tensor(x[idx]), Tensor(y[idx])
