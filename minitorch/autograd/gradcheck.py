"""``gradcheck``: compare analytic gradients (backward) with finite differences.

For each input element x_i, the central difference (f(x + eps) - f(x - eps)) / (2 eps)
estimates d f / d x_i for every output element. Backward gives the same numbers, one row
of the Jacobian per output element. They must agree within ``atol + rtol * |numeric|``.
Use float64 inputs: in float32 the rounding error of f swamps the difference.

``gradgradcheck`` does the same for the second derivatives: it checks the function
(inputs, v) -> the gradient of f's outputs weighted by v, computed with
``create_graph=True``, so the recorded backward pass is itself checked by gradcheck.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.engine import tensor_backward
from minitorch.autograd.grad_mode import enable_grad, no_grad
from minitorch.autograd.gradients import grad as autograd_grad
from minitorch.tensor_base import TensorBase


class GradcheckError(RuntimeError):
    """Analytic and numerical gradients disagree."""


def _outputs(fn: Callable[..., Any], inputs: Sequence[Any]) -> list[TensorBase]:
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, TensorBase)]


def numerical_jacobian(fn: Callable[..., Any], inputs: Sequence[Any], index: int, eps: float) -> np.ndarray:
    """d outputs / d inputs[index] by central differences: shape (input numel, output numel)."""
    x = inputs[index]
    data = x.data  # written in place element by element (reshape(-1) would copy a transposed x)
    columns = []
    with no_grad():
        for i in range(data.size):
            position = np.unravel_index(i, data.shape)
            original = data[position].item()
            data[position] = original + eps
            plus = [backends.to_device(o.data, "cpu").astype(np.float64).ravel() for o in _outputs(fn, inputs)]
            data[position] = original - eps
            minus = [backends.to_device(o.data, "cpu").astype(np.float64).ravel() for o in _outputs(fn, inputs)]
            data[position] = original
            columns.append(np.concatenate([(p - m) / (2 * eps) for p, m in zip(plus, minus)]))
    return np.stack(columns) if columns else np.zeros((0, 0))


def analytic_jacobian(fn: Callable[..., Any], inputs: Sequence[Any], index: int) -> np.ndarray:
    """d outputs / d inputs[index] from backward, one backward per output element."""
    return analytic_jacobians(fn, inputs, [index])[index]


def analytic_jacobians(fn: Callable[..., Any], inputs: Sequence[Any], indices: Sequence[int]) -> dict[int, np.ndarray]:
    """d outputs / d inputs[i] for each i of ``indices``, from one backward per output element
    (each backward fills every input's ``.grad`` at once)."""
    outputs = _outputs(fn, inputs)
    sizes = [o.data.size for o in outputs]
    rows = {i: np.zeros((inputs[i].data.size, sum(sizes))) for i in indices}
    column = 0
    for o in outputs:
        for j in range(o.data.size):
            if o.requires_grad:
                for t in inputs:
                    if isinstance(t, TensorBase):
                        t.grad = None
                seed = np.zeros(o.data.size, dtype=o.data.dtype)
                seed[j] = 1
                seed = backends.to_device(seed.reshape(o.data.shape), o.device)
                tensor_backward(o, TensorBase._make(seed, None, False), retain_graph=True)
                for i in indices:
                    grad = inputs[i].grad
                    if grad is not None:
                        rows[i][:, column] = backends.to_device(grad.data, "cpu").ravel()
            column += 1
    for t in inputs:
        if isinstance(t, TensorBase):
            t.grad = None
    return rows


def gradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """True when ``fn``'s backward matches finite differences for every input needing grad.

    ``inputs`` is a tuple of tensors (and other arguments); those with ``requires_grad``
    are checked. On a mismatch it raises an error naming the input, the worst element and
    both values (or returns False with ``raise_exception=False``).
    """
    if isinstance(inputs, TensorBase):
        inputs = (inputs,)
    inputs = tuple(inputs)
    checked = [i for i, t in enumerate(inputs) if isinstance(t, TensorBase) and t.requires_grad]
    if not checked:
        raise ValueError("gradcheck: no input has requires_grad=True, so there is nothing to check")
    for i in checked:
        if inputs[i].data.dtype != np.float64:
            warnings.warn(
                f"gradcheck: input {i} is {inputs[i].dtype}, not float64; finite differences in "
                "single precision are too noisy to be trusted",
                stacklevel=2,
            )
    analytic_of = analytic_jacobians(fn, inputs, checked)
    for i in checked:
        numeric = numerical_jacobian(fn, inputs, i, eps)
        analytic = analytic_of[i]
        error = np.abs(analytic - numeric) - (atol + rtol * np.abs(numeric))
        if error.size and (np.isnan(error).any() or error.max() > 0):
            worst = np.unravel_index(np.nanargmax(np.where(np.isnan(error), np.inf, error)), error.shape)
            in_index = np.unravel_index(worst[0], inputs[i].shape) if inputs[i].ndim else ()
            message = (
                f"gradcheck: gradient mismatch for input {i} (shape {tuple(inputs[i].shape)}): at "
                f"input element {tuple(int(v) for v in in_index)}, output element {int(worst[1])}: "
                f"numerical {numeric[worst]:.6g} vs analytic {analytic[worst]:.6g} "
                f"(atol={atol}, rtol={rtol})"
            )
            if raise_exception:
                raise GradcheckError(message)
            return False
    return True


def gradgradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    seed: int = 0,
) -> bool:
    """True when the second derivatives of ``fn`` (its backward, recorded with
    ``create_graph=True``, then differentiated) match finite differences of its gradients.

    ``grad_outputs``: one tensor per output of ``fn`` to weight them by (random float64
    ones, requiring grad, when None, from a generator seeded with ``seed``). Both the inputs
    and the ``grad_outputs`` are checked, as in PyTorch.
    """
    if isinstance(inputs, TensorBase):
        inputs = (inputs,)
    inputs = tuple(inputs)
    differentiable = [i for i, t in enumerate(inputs) if isinstance(t, TensorBase) and t.requires_grad]
    if not differentiable:
        raise ValueError("gradgradcheck: no input has requires_grad=True, so there is nothing to check")
    outputs = [o for o in _outputs(fn, inputs) if o.requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        grad_outputs = tuple(
            TensorBase._make(
                backends.to_device(rng.standard_normal(o.data.shape), o.device).astype(o.data.dtype), None, True
            )
            for o in outputs
        )
    elif isinstance(grad_outputs, TensorBase):
        grad_outputs = (grad_outputs,)
    grad_outputs = tuple(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError(
            f"gradgradcheck: {len(grad_outputs)} grad_outputs for {len(outputs)} outputs that require grad"
        )
    count = len(inputs)

    def first_derivatives(*values: Any) -> tuple[Any, ...]:
        with enable_grad():
            outs = [o for o in _outputs(fn, values[:count]) if o.requires_grad]
            grads = autograd_grad(
                outs, [values[i] for i in differentiable], values[count:], create_graph=True, allow_unused=True
            )
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps, atol, rtol, raise_exception)
