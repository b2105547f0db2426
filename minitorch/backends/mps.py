"""``minitorch.backends.mps``, as ``torch.backends.mps``: Apple's GPUs are not supported."""


def is_available() -> bool:
    """False: MiniTorch runs on the CPU (NumPy) and on NVIDIA GPUs (CuPy), not on MPS."""
    return False


def is_built() -> bool:
    """False: there is no MPS backend in MiniTorch."""
    return False
