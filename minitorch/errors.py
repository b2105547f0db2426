"""The error MiniTorch raises for a misuse it can explain, and helpers to format shapes."""


class MiniTorchError(RuntimeError):
    """A RuntimeError (as PyTorch raises) whose message already names the op and operands."""


def fmt_shape(shape):
    """``(3, 4)`` for a shape tuple, with ``()`` for a scalar."""
    return str(tuple(shape))
