"""The CPU's fast kernels (NumPy, with its BLAS), one module per family of ops.

Each module registers its kernels when imported (``minitorch/kernels/__init__.py`` imports
them all); helpers several kernels share (the BLAS sums of ``blas_sums.py``, the small
products of ``small_products.py``, the windows of ``windows.py``) live once here.
"""
