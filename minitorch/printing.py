"""``repr`` of a Tensor in PyTorch's style: ``tensor([1.5000, 2.0000], requires_grad=True)``."""

import numpy as np

from minitorch import backends


def format_values(data):
    """The values as text: 4 decimals for floats (``1.`` when all are whole numbers)."""
    data = backends.to_device(data, "cpu")
    options = {"separator": ", ", "prefix": "tensor(", "threshold": 1000, "edgeitems": 3}
    if data.dtype.kind == "f" and data.size:
        finite = data[np.isfinite(data)]
        whole = finite.size == 0 or bool(np.all(finite == np.round(finite)))
        big = finite.size and float(np.abs(finite).max()) >= 1e8
        tiny = finite.size and 0 < float(np.abs(finite[finite != 0]).min(initial=np.inf)) < 1e-4
        if big or (tiny and not whole):  # a wide range of magnitudes: scientific notation
            options.update(precision=4, floatmode="fixed", formatter={"float_kind": lambda v: f"{v:.4e}"})
        elif not whole:
            options.update(precision=4, floatmode="fixed", suppress_small=True)
    return np.array2string(data, **options)


def tensor_repr(t):
    """The full repr, with dtype, device, requires_grad and grad_fn when they are not default."""
    extras = []
    kind = t.data.dtype
    if kind == np.float64 or kind == np.float16 or (t.data.size == 0 and kind != np.float32):
        extras.append(f"dtype={t.dtype}")
    if t.device != "cpu":
        extras.append(f"device='{t.device}:0'")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    body = format_values(t.data)
    if t.data.size == 0:
        body = "[]" if t.data.ndim == 1 else f"[], size={tuple(t.shape)}"
    return "tensor(" + ", ".join([body, *extras]) + ")"
