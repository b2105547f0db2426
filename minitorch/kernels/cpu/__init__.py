"""The CPU's fast kernels (NumPy), one module per topic; ``minitorch/kernels/__init__.py`` imports them."""
