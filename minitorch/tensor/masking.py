"""Tensor methods of the ops in ``functions/masking.py``."""

from __future__ import annotations

from minitorch.functions import masking
from minitorch.tensor_base import TensorBase


class MaskingMethods(TensorBase):
    """``Tensor``'s masked_fill, tril, triu."""

    __slots__ = ()

    # Sequence models and attention (functions/masking.py, special.py, split.py): one line each.
    masked_fill = masking.masked_fill
    tril = masking.tril
    triu = masking.triu
