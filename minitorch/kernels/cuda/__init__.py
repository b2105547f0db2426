"""Fast kernels for CuPy arrays (a GPU), one module per topic; each registers its kernels at import.

Nothing here imports CuPy at import time: a kernel's predicate is asked only for arrays that
are already on the GPU.
"""
