"""``minitorch.backends.cudnn``, as ``torch.backends.cudnn``: flags scripts set, answered truthfully.

MiniTorch's GPU code is CuPy (cuBLAS for matrix products, its own kernels for the rest);
it does not call cuDNN, so ``is_available()`` is False and the flags change nothing.
"""

enabled = True  # accepted for compatibility; MiniTorch never calls cuDNN
benchmark = False
deterministic = False


def is_available() -> bool:
    """False: MiniTorch does not use cuDNN (its convolutions are im2col + a matrix product)."""
    return False


def version() -> None:
    """None: no cuDNN is loaded."""
    return None

allow_tf32 = True  # PyTorch's default; MiniTorch's convolutions never use TensorFloat-32 either way
