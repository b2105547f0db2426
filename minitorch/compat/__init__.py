"""Compatibility shims. ``compat/torch/`` is the ``torch`` alias that ``python -m minitorch.run_as_torch``
puts first on the path: ``import torch`` then gives MiniTorch itself (see docs/DIFFERENCES-FROM-PYTORCH.md).

This package is never imported by MiniTorch; only that run puts ``minitorch/compat`` on ``sys.path``.
"""
