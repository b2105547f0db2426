"""PyTorch compatibility: what lets PyTorch programs and older tutorials run on MiniTorch.

- ``alias/torch/``: the ``torch`` alias that ``python -m minitorch.run_as_torch`` puts first
  on ``sys.path`` (``alias/`` holds nothing else, so no other import of a script is taken):
  ``import torch`` then gives MiniTorch itself (see docs/DIFFERENCES-FROM-PYTORCH.md).
- ``torch_script.py``: that run reads a program's source with PyTorch's meaning of ``.data``.
- ``legacy.py``: the spellings before PyTorch 0.4 (``Variable``, ``FloatTensor`` ...).
- ``unsupported_dtypes.py``: names of PyTorch dtypes MiniTorch lacks (``bfloat16``), so
  scripts that only name them still load.

It sits above the Tensor face: ``minitorch/__init__.py`` imports ``legacy`` and
``unsupported_dtypes``; nothing below imports this package.
"""
