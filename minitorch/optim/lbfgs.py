"""L-BFGS: a quasi-Newton method that calls the model many times per ``step(closure)``.

Where SGD takes one step along the gradient, L-BFGS builds a picture of the loss's
curvature from the last ``history_size`` steps ``s`` (how the weights moved) and ``y`` (how
the gradient changed) and steps along ``-H g``, with ``H`` an estimate of the inverse
Hessian that is never formed: the "two-loop recursion" applies it to ``g`` directly.
Each ``step(closure)`` runs up to ``max_iter`` such iterations, calling ``closure`` (which
zeroes the gradients, computes the loss, calls ``backward`` and returns the loss) to
evaluate the model, so the closure is required.

The step length is ``lr`` (the very first: ``min(1, 1/|g|_1) * lr``), or, with
``line_search_fn="strong_wolfe"``, found by a line search that brackets a step with enough
decrease and a flat enough slope, then zooms in with cubic interpolation.

This follows PyTorch's ``torch.optim.LBFGS`` (itself a port of minFunc): the same
iterations, stopping tests and state, computed on one flat array of every parameter in
their dtype, so a float32 problem follows PyTorch's trajectory to float32 rounding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from minitorch import backends
from minitorch.autograd import enable_grad
from minitorch.errors import MiniTorchError
from minitorch.optim.optimizer import Optimizer
from minitorch.tensor import Tensor


def _cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                   bounds: tuple[float, float] | None = None) -> float:  # fmt: skip
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, kept within ``bounds``."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square < 0:  # no real minimum: bisect
        return (low + high) / 2.0
    d2 = d2_square**0.5
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, low), high)


def strong_wolfe(evaluate: Callable[[float], tuple[float, Any]], t: float, d: Any, f: float, g: Any, gtd: Any,
                 c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_ls: int = 25) -> tuple[float, Any, float, int]:  # fmt: skip
    """A step ``t`` along ``d`` meeting the strong Wolfe conditions: (loss, gradient, t, evaluations).

    The slopes (``gtd``: g.d) stay 0-d arrays of the parameters' dtype, as PyTorch's stay
    float32 tensors, so the tests below compare the same numbers.

    ``evaluate(t)`` gives (loss, flat gradient) at the weights + t * d. Sufficient decrease:
    f(t) <= f + c1 t g.d; curvature: |g(t).d| <= c2 |g.d|. First a bracket of steps known to
    hold a good one is found by growing t, then the bracket shrinks ("zoom") until one fits.
    """
    d_norm = abs(d).max()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done, ls_iter = False, 0
    bracket: list[float] = []
    bracket_f: list[float] = []
    bracket_g: list[Any] = []
    bracket_gtd: list[Any] = []
    while ls_iter < max_ls:
        too_high = f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev)
        if not too_high and abs(gtd_new) <= -c2 * gtd:  # both conditions hold: this t is it
            bracket, bracket_f, bracket_g, done = [t], [f_new], [g_new], True
            break
        if too_high or gtd_new >= 0:  # a good step lies between t_prev and t
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # Still going down steeply: try a longer step, between 1.01 t and 10 t.
        step_min, step_max = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = t, _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(step_min, step_max))
        f_prev, g_prev, gtd_prev = f_new, g_new.copy(), gtd_new
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0.0, t], [f, f_new], [g, g_new]
    # Zoom: shrink the bracket [low, high] (low: the best step so far) around a good step.
    insufficient_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # Keep t away from the bracket's ends: a step there would shrink the bracket too little.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insufficient_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new.copy(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    """``LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
    history_size=100, line_search_fn=None)``; ``step(closure)`` only."""

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:  # fmt: skip
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):  # PyTorch: the same RuntimeError, at the first step
            raise MiniTorchError(f"LBFGS: only 'strong_wolfe' is supported as line_search_fn, got {line_search_fn!r}")
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]

    # ------------------------------------------------------------------ flat views of the parameters
    def _flat_grad(self) -> Any:
        """Every parameter's gradient in one flat array (zeros for a parameter without one)."""
        xp = backends.module_of(self._params[0].data)
        parts = [xp.zeros(p.data.size, dtype=p.data.dtype) if p.grad is None else p.grad.data.reshape(-1)
                 for p in self._params]
        return xp.concatenate(parts)

    def _add_to_params(self, step: float, direction: Any) -> None:
        """weights += step * direction (the flat direction cut back into each parameter's shape)."""
        offset = 0
        for p in self._params:
            n = p.data.size
            p.data += (step * direction[offset : offset + n]).reshape(p.data.shape).astype(p.data.dtype, copy=False)
            p._bump_version()  # p changed in place: a graph that saved it is now stale
            offset += n

    def _weights(self) -> list[Any]:
        """A copy of every parameter's values (the line search returns to them after each trial)."""
        return [p.data.copy() for p in self._params]

    def _set_weights(self, weights: list[Any]) -> None:
        """Put back the values ``_weights`` copied."""
        for p, w in zip(self._params, weights):
            p.data[...] = w
            p._bump_version()

    def _evaluate(self, closure: Callable[[], Any]) -> float:
        """The closure's loss as a number, computed with grad mode on (even inside no_grad)."""
        with enable_grad():
            return float(closure())

    # ------------------------------------------------------------------ the step
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Up to ``max_iter`` L-BFGS iterations; returns the loss ``closure`` gave before the first."""
        if closure is None:  # PyTorch: a TypeError (closure is a required argument)
            raise TypeError(
                "LBFGS.step needs a closure that re-evaluates the model: def closure(): opt.zero_grad(); "
                "loss = loss_fn(model(x), y); loss.backward(); return loss  -- then opt.step(closure)"
            )
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search_fn = group["history_size"], group["line_search_fn"]
        # The state lives with the first parameter, as in PyTorch (one entry for the whole problem).
        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if abs(flat_grad).max() <= tolerance_grad:  # already optimal
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs: list[Any] = state.get("old_dirs", [])  # the history: weight steps s, gradient changes y
        old_stps: list[Any] = state.get("old_stps", [])
        ro: list[Any] = state.get("ro", [])  # 1 / (y . s) per pair
        H_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:  # the first direction: steepest descent
                d = -flat_grad
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                d, H_diag = self._direction(flat_grad, prev_flat_grad, d, t, old_dirs, old_stps, ro, H_diag,
                                            history_size)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            # The step length: a cautious first step (the scale of H is unknown yet), then lr.
            t = min(1.0, 1.0 / abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)  # the slope along d: >= 0 means d does not go down
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                start = self._weights()

                def along(step: float, start: list[Any] = start, d: Any = d) -> tuple[float, Any]:
                    self._add_to_params(step, d)
                    value = self._evaluate(closure)
                    gradient = self._flat_grad()
                    self._set_weights(start)
                    return value, gradient

                # As PyTorch: the search may use what is left of max_eval (and its own tolerance).
                loss, flat_grad, t, ls_func_evals = strong_wolfe(along, t, d, loss, flat_grad, gtd,
                                                                 max_ls=max_eval - current_evals)
                self._add_to_params(t, d)
                optimal = abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_to_params(t, d)
                optimal = False
                if n_iter != max_iter:  # re-evaluate for the next iteration (not after the last)
                    loss = self._evaluate(closure)
                    flat_grad = self._flat_grad()
                    optimal = abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # Stop when out of budget, at a flat point, or when nothing changes any more.
            if n_iter == max_iter or current_evals >= max_eval or optimal:
                break
            if abs(d * t).max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    @staticmethod
    def _direction(flat_grad: Any, prev_flat_grad: Any, d: Any, t: Any, old_dirs: list[Any], old_stps: list[Any],
                   ro: list[Any], H_diag: Any, history_size: int) -> tuple[Any, Any]:  # fmt: skip
        """The next direction -H g by the two-loop recursion, after adding the last step to the history."""
        y = flat_grad - prev_flat_grad  # how the gradient changed
        s = d * t  # how the weights moved
        ys = y.dot(s)
        if ys > 1e-10:  # keep only pairs with positive curvature (H stays positive definite)
            if len(old_dirs) == history_size:
                old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            H_diag = ys / y.dot(y)  # the initial H: a scaled identity
        alphas = [None] * len(old_dirs)
        q = -flat_grad
        for i in range(len(old_dirs) - 1, -1, -1):
            alphas[i] = old_stps[i].dot(q) * ro[i]
            q = q - alphas[i] * old_dirs[i]
        r = q * H_diag
        for i in range(len(old_dirs)):
            beta = old_dirs[i].dot(r) * ro[i]
            r = r + (alphas[i] - beta) * old_stps[i]
        return r, H_diag
