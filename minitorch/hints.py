"""The names MiniTorch's type hints use, so that a signature reads like its docstring.

- ``Array``: a backend array, the ``.data`` of a Tensor and what an op's ``forward`` and
  ``backward`` compute with. It is a NumPy ``ndarray`` on the CPU and a CuPy ``ndarray``
  on a GPU; the two share an API but no base class, so to the type checker an ``Array``
  is ``Any`` (anything goes). The name is for the reader.
- ``Shape``: a tensor's size along each dimension, e.g. ``(3, 4)``; ``()`` for a scalar.
- ``DTypeLike``: anything ``dtypes.get_dtype`` turns into a DType: ``minitorch.float32``,
  ``numpy.float32``, ``"float32"``, ``float``...
- ``Gradients``: what an op's ``backward`` returns: one gradient array per input of its
  ``forward``, None for an input that needs none.

Only the checker reads these (``mypy``, run by ``make lint``); nothing is checked at runtime.
"""

from typing import Any

Array = Any
Shape = tuple[int, ...]
DTypeLike = Any
Gradients = tuple[Any, ...]

__all__ = ["Array", "DTypeLike", "Gradients", "Shape"]
