"""In-place updates of a Tensor: ``+=``, ``add_``, ``exp_``, ``clamp_``, ``zero_``, ``fill_``, ``normal_``,
``copy_``, ``t[i] = v``.

Two rules make them safe, as in PyTorch:

1. **Versions.** Every in-place change bumps the tensor's version counter (shared with its
   views). An op that saved the tensor for backward remembered the version it saw, and
   backward refuses to use values changed since ("... has been modified by an inplace
   operation"), instead of computing a silently wrong gradient.
2. **Recorded updates.** While the graph is recorded, an update that involves it (the
   tensor is the output of an op, or the new values require grad) is recorded as the
   ordinary op: ``out += b`` computes ``out + b``, writes the result into ``out``'s
   memory and makes that op ``out``'s ``grad_fn``. A leaf that requires grad cannot be
   changed in place while recording (its ``.grad`` would describe values it no longer
   holds): update parameters under ``with minitorch.no_grad():``, as optimizers do.

Every in-place method lives here (not beside its out-of-place op), because they share
one mechanism (``_update``): it finds the op by name in ``minitorch.functions``.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from minitorch import backends, factories
from minitorch import functions as ops
from minitorch.dtypes import dtype_of_array, result_dtype, scalar_category
from minitorch.errors import MiniTorchError, device_mismatch_message
from minitorch.functions.clamping import check_bound_kinds
from minitorch.functions.index_put import check_value_dtype, write_at
from minitorch.random import transforms as random_transforms
from minitorch.switches import SWITCHES
from minitorch.tensor import numpy_ufuncs
from minitorch.tensor_base import TensorBase

_CATEGORY_NAMES = {0: "Bool", 1: "Long", 2: "Float"}


class InPlaceMethods(TensorBase):
    """The in-place methods of ``Tensor`` (a mixin: it holds no state of its own)."""

    __slots__ = ()

    # ``p.data += -lr * p.grad``: NumPy updating a plain array with a Tensor, in place (see
    # minitorch/tensor/numpy_ufuncs.py); every other ufunc on a Tensor defers to its operators.
    __array_ufunc__ = numpy_ufuncs.array_ufunc  # type: ignore[assignment]  # TensorBase says None

    # ------------------------------------------------------------------ arithmetic
    def __iadd__(self, other: Any) -> Any:
        return self._update("+=", "add", other)

    def __isub__(self, other: Any) -> Any:
        return self._update("-=", "sub", other)

    def __imul__(self, other: Any) -> Any:
        return self._update("*=", "mul", other)

    def __itruediv__(self, other: Any) -> Any:
        return self._update("/=", "div", other)

    def add_(self, other: Any, alpha: float = 1) -> Any:
        """In-place ``self += alpha * other``."""
        return self._update("add_", "add", other * alpha if alpha != 1 else other)

    def sub_(self, other: Any, alpha: float = 1) -> Any:
        """In-place ``self -= alpha * other``."""
        return self._update("sub_", "sub", other * alpha if alpha != 1 else other)

    def mul_(self, other: Any) -> Any:
        """In-place ``self *= other``."""
        return self._update("mul_", "mul", other)

    def div_(self, other: Any) -> Any:
        """In-place ``self /= other``."""
        return self._update("div_", "div", other)

    # ------------------------------------------------------------------ elementwise ops
    def clamp_(self, min: Any = None, max: Any = None) -> Any:
        """In-place ``clamp``: limit every element to [min, max]."""
        check_bound_kinds("clamp_", min, max)
        return self._apply_op("clamp_", ops.clamp, min, max)

    clip_ = clamp_

    def exp_(self) -> Any:
        """In-place ``exp``."""
        return self._apply_op("exp_", ops.exp)

    def log_(self) -> Any:
        """In-place ``log``."""
        return self._apply_op("log_", ops.log)

    def sqrt_(self) -> Any:
        """In-place ``sqrt``."""
        return self._apply_op("sqrt_", ops.sqrt)

    def abs_(self) -> Any:
        """In-place ``abs``."""
        return self._apply_op("abs_", ops.abs)

    def neg_(self) -> Any:
        """In-place negation (a bool tensor is refused, as for ``-x``)."""
        return self._apply_op("neg_", lambda t: -t)

    def pow_(self, exponent: Any) -> Any:
        """In-place ``self ** exponent``."""
        return self._apply_op("pow_", ops.pow, exponent)

    def relu_(self) -> Any:
        """In-place ``relu``."""
        return self._apply_op("relu_", ops.relu)

    def sigmoid_(self) -> Any:
        """In-place ``sigmoid``."""
        return self._apply_op("sigmoid_", ops.sigmoid)

    def tanh_(self) -> Any:
        """In-place ``tanh``."""
        return self._apply_op("tanh_", ops.tanh)

    def masked_fill_(self, mask: Any, value: Any) -> Any:
        """In-place ``masked_fill``: ``value`` where the bool ``mask`` is True."""
        return self._apply_op("masked_fill_", ops.masked_fill, mask, value)

    # ------------------------------------------------------------------ random fills
    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Any:
        """Fill with samples of N(mean, std**2) from minitorch's generator (``manual_seed``)."""
        if std < 0:
            raise MiniTorchError(f"normal_: expects std >= 0.0, but found std {std}")
        return self._random_fill("normal_", "normal", mean, std, generator)

    def uniform_(self, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Any:
        """Fill with samples of U(a, b) (the range [a, b)) from minitorch's generator."""
        if a > b:
            raise MiniTorchError(f"uniform_: expects to return a [from, to) range, but found from={a} > to={b}")
        return self._random_fill("uniform_", "uniform", a, b, generator)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Any:
        """Fill with 1 (probability ``p``, a number or a tensor broadcasting to this one) or 0."""
        me: Any = self
        if isinstance(p, InPlaceMethods):
            probs: Any = ops.broadcast_to(p.detach(), tuple(me.shape))
            value = ops.bernoulli(probs.contiguous(), generator=generator).to(me.dtype)
            return self._overwrite("bernoulli_", Ellipsis, value)
        return self._overwrite("bernoulli_", Ellipsis, factories.random_values_like(
            me, "bernoulli", random_transforms.check_probability("bernoulli_", p), 0.0, generator))

    # ------------------------------------------------------------------ overwriting
    def zero_(self) -> Any:
        """Fill with zeros in place."""
        return self._overwrite("zero_", Ellipsis, 0)

    def fill_(self, value: Any) -> Any:
        """Fill with ``value`` (a number or a one-element tensor) in place."""
        if isinstance(value, InPlaceMethods) and value.data.size != 1:
            raise MiniTorchError(
                f"fill_: only supports a number or a one-element tensor as the value, got a tensor of "
                f"shape {tuple(value.data.shape)}; use copy_ to copy a tensor's values"
            )
        return self._overwrite("fill_", Ellipsis, value)

    def copy_(self, src: Any) -> Any:
        """Copy ``src``'s values into this tensor in place (``src`` broadcasts to its shape)."""
        if not isinstance(src, InPlaceMethods):
            src = TensorBase._make(backends.module_of(src).asarray(src), None, False)
        elif src.device != self.device:
            source: Any = src
            src = source.to(self.device)  # copy_ moves between devices
        me: Any = self
        if src.ndim > me.ndim:  # t[...] = v may drop v's leading 1s; copy_ may not (PyTorch)
            raise MiniTorchError(
                f"copy_: the source of shape {tuple(src.shape)} has more dims than the tensor of "
                f"shape {tuple(me.shape)}; it must broadcast to the tensor's shape"
            )
        return self._overwrite("copy_", Ellipsis, src)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._overwrite("__setitem__ (t[...] = value)", index, value)

    # ------------------------------------------------------------------ the paths
    def _apply_op(self, name: str, op: Any, *args: Any) -> Any:
        """``self = op(self, *args)`` in place: the op runs as usual (recorded when it involves
        the graph), then its result is written into this tensor's memory."""
        me: Any = self
        others_need = any(isinstance(a, InPlaceMethods) and a.requires_grad for a in args)
        if SWITCHES.grad_enabled and (me.requires_grad or others_need):
            _refuse_leaf(me, name)
        result = op(me, *args)
        # The result keeps this tensor's dtype (exp_ of a float32 tensor with a float64 exponent
        # stays float32), but never drops to a lower kind: a float result for an integer tensor,
        # or an integer one for a bool tensor, is refused (PyTorch's "can't be cast" error).
        mine, theirs = dtype_of_array(me.data).category, dtype_of_array(result.data).category
        if theirs > mine:
            raise MiniTorchError(
                f"{name}: result type {_CATEGORY_NAMES[theirs]} can't be cast to the desired output type "
                f"{_CATEGORY_NAMES[mine]} (a {me.dtype} tensor); convert first, e.g. x = x.float()"
            )
        if result.data.dtype != me.data.dtype:
            result = ops.cast(result, me.dtype)
        return _write_recorded(me, name, result)

    def _random_fill(self, name: str, distribution: str, a: float, b: float, generator: Any) -> Any:
        """Overwrite with random values (recorded like ``t[...] = values``: a zero gradient to the old ones)."""
        me: Any = self
        if me.data.dtype.kind != "f":
            raise NotImplementedError(f"{name}: not implemented for a {me.dtype} tensor (floating tensors only)")
        return self._overwrite(name, Ellipsis, factories.random_values_like(me, distribution, a, b, generator))

    def _update(self, name: str, op_name: str, other: Any) -> Any:
        """``self <op>= other``: recorded when it involves the graph, else done on the data."""
        me: Any = self
        other_is_tensor = isinstance(other, InPlaceMethods)
        if op_name == "sub" and (
            me.data.dtype.kind == "b" or isinstance(other, (builtins.bool, np.bool_))
            or other_is_tensor and other.data.dtype.kind == "b"
        ):
            raise MiniTorchError(
                f"{name}: subtraction with a bool operand is not supported (as PyTorch); for a mask "
                "use ~ (logical not) or ^ (logical xor)"
            )
        if SWITCHES.grad_enabled and (me.requires_grad or (other_is_tensor and other.requires_grad)):
            _refuse_leaf(me, name)
            return _write_recorded(me, name, getattr(ops, op_name)(me, other))
        value = other.data if other_is_tensor else other
        if other_is_tensor and other.device != me.device:
            raise MiniTorchError(device_mismatch_message(name, [(0, me.device), (1, other.device)]))
        if not other_is_tensor and not isinstance(other, (int, float, builtins.bool, np.number, np.bool_)):
            if not backends.is_backend_array(other):
                raise TypeError(f"{name}: can't combine a tensor with {type(other).__name__} {other!r}")
            value = other
        _check_result_dtype(me, name, op_name, value)
        _check_broadcast(me, name, getattr(value, "shape", ()))
        xp = backends.module_of(me.data)
        ufunc = {"add": xp.add, "sub": xp.subtract, "mul": xp.multiply, "div": xp.true_divide}[op_name]
        ufunc(me.data, value, out=me.data, casting="unsafe")  # dtype already checked above
        me._bump_version()
        return me

    def _overwrite(self, name: str, index: Any, value: Any) -> Any:
        """``self[index] = value``: recorded when it involves the graph, else done on the data."""
        me: Any = self
        value_is_tensor = isinstance(value, InPlaceMethods)
        if SWITCHES.grad_enabled and (me.requires_grad or (value_is_tensor and value.requires_grad)):
            _refuse_leaf(me, name)
            return _write_recorded(me, name, ops.index_put(me, index, value))
        if value_is_tensor and value.device != me.device:
            raise MiniTorchError(device_mismatch_message(name, [(0, me.device), (1, value.device)]))
        data = value.data if value_is_tensor else value
        check_value_dtype(me, index, value)
        try:
            write_at(me.data, ops.index_put_index(index, me.data), data)
        except (IndexError, ValueError, TypeError) as exc:
            shape = tuple(getattr(data, "shape", ()))
            raise type(exc)(
                f"{name}: can't write a value of shape {shape} into a tensor of shape {tuple(me.shape)} "
                f"at index {index!r}: {exc}"
            ) from exc
        me._bump_version()
        return me


# ---------------------------------------------------------------------- helpers
def _refuse_leaf(tensor: Any, name: str) -> None:
    if tensor.grad_fn is None and tensor.requires_grad:
        raise MiniTorchError(
            f"{name}: a leaf tensor that requires grad can't be changed in place while the graph is "
            "recorded (its .grad would no longer match its values); update it inside "
            "`with minitorch.no_grad():`, as optimizers do"
        )


def _write_recorded(tensor: Any, name: str, result: Any) -> Any:
    """Write ``result`` (computed by a recorded op) into ``tensor`` and make it its grad_fn."""
    _check_broadcast(tensor, name, tuple(result.shape))
    if result.data.dtype.kind == "f" and tensor.data.dtype.kind != "f":
        raise MiniTorchError(
            f"{name}: result type Float can't be cast to the desired output type "
            f"{_CATEGORY_NAMES[dtype_of_array(tensor.data).category]}"
        )
    counter = tensor._version_counter
    if counter is not None and counter.shared and tensor.grad_fn is not None:
        raise MiniTorchError(
            f"{name}: this tensor shares memory with another tensor of the graph (it is a view, or "
            "has views); MiniTorch does not record in-place changes through views. Write it out of "
            "place instead, e.g. y = y + b"
        )
    old = tensor.data
    node = result.grad_fn
    if node is not None:
        # The new op may have saved the old values (x *= w saves x for w's gradient): give it
        # its own copy before they are overwritten, and forget the version it recorded.
        node._saved = tuple(s.copy() if s is old else s for s in node._saved)
        if node._versions is not None and counter is not None:
            node._versions = tuple(v for v in node._versions if v[0] is not counter) or None
    backends.module_of(old).copyto(old, result.data, casting="unsafe")  # views see the new values
    tensor._bump_version()
    if node is not None:
        tensor.grad_fn = node
        tensor.requires_grad = True
    return tensor


def _check_broadcast(tensor: Any, name: str, other_shape: tuple[int, ...]) -> None:
    """In place, the other operand may broadcast to the tensor's shape but never enlarge it."""
    shape = tuple(tensor.data.shape)
    if tuple(other_shape) == shape:
        return
    try:
        result = np.broadcast_shapes(shape, tuple(other_shape))
    except ValueError:
        result = None
    if result != shape:
        raise MiniTorchError(
            f"{name}: output with shape {shape} doesn't match the broadcast shape "
            f"{'(incompatible)' if result is None else tuple(result)} (other operand of shape {tuple(other_shape)}); "
            "an in-place op can't change the tensor's shape: write it out of place, e.g. x = x + y"
        )


def _check_result_dtype(tensor: Any, name: str, op_name: str, value: Any) -> None:
    """PyTorch's rule: ``int_tensor += 0.5`` is refused (the result type can't be stored)."""
    mine = dtype_of_array(tensor.data)
    if backends.is_backend_array(value):
        other = dtype_of_array(value)
        # A 0-d tensor counts for less than a shaped one in PyTorch's promotion.
        result = result_dtype([mine], [other]) if value.ndim == 0 else result_dtype([mine, other])
    else:
        result = result_dtype([mine], [], [scalar_category(value)])
    category = 2 if op_name == "div" else result.category  # true division always gives floats
    if category > mine.category:
        raise MiniTorchError(
            f"{name}: result type {_CATEGORY_NAMES[category]} can't be cast to the desired output type "
            f"{_CATEGORY_NAMES[mine.category]} (a {mine} tensor); convert first, e.g. x = x.float()"
        )
