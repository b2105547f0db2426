"""``minitorch.backends.cuda``, as ``torch.backends.cuda``: the flags scripts set before training.

``torch.backends.cuda.matmul.allow_tf32 = True`` (nanoGPT, minGPT) lets PyTorch round float32
matrix products to TensorFloat-32 on an Ampere GPU. MiniTorch's products are cuBLAS calls
in full float32 whatever the flag says, so the flags are kept (a script may read them back)
and change nothing.
"""

from types import SimpleNamespace

# ``matmul.allow_tf32`` and friends: plain attributes a script may set and read.
matmul = SimpleNamespace(
    allow_tf32=False,
    allow_fp16_reduced_precision_reduction=True,
    allow_bf16_reduced_precision_reduction=True,
)


def is_built() -> bool:
    """True: MiniTorch has a CUDA backend (CuPy); ``minitorch.cuda.is_available()`` says if it runs here."""
    return True


def flash_sdp_enabled() -> bool:
    """False: ``scaled_dot_product_attention`` is one plain softmax(QK^T)V, never a flash kernel."""
    return False


def mem_efficient_sdp_enabled() -> bool:
    """False: there is no memory-efficient attention kernel in MiniTorch."""
    return False


def math_sdp_enabled() -> bool:
    """True: attention is always computed the plain ("math") way."""
    return True
