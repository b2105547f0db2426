"""Fast kernels for CuPy arrays (a GPU), one module per topic; each registers its kernels at import.

- ``sources.py``: MiniTorch's hand-written CUDA kernels (CuPy ``ElementwiseKernel`` sources),
  the functions that launch them and their NumPy twins;
- ``elementwise.py``: ``ReLU`` and ``BiasReLU`` with those kernels;
- ``cross_entropy.py``: ``SoftmaxCrossEntropy`` with those kernels;
- ``special.py``: erf and GELU with CuPy's own erf.

(The SGD and Adam steps in ``sources.py`` are update kernels: ``kernels/optimizers/fused.py``.)
Nothing here imports CuPy at import time: a kernel's predicate is asked only for arrays that
are already on the GPU, and a kernel is built (and compiled by CuPy) on its first call.
"""
