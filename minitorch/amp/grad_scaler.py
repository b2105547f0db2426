"""``GradScaler``: loss scaling, so that small float16 gradients do not underflow to zero.

float16 cannot hold numbers below about 6e-8: many gradients of a real network are
smaller and would become 0. Multiplying the loss by a large scale S (65536 at the start)
multiplies every gradient by S too, lifting them into float16's range; before the
optimizer step the gradients are divided by S again ("unscaled"). If a gradient became
inf or NaN, S was too large: that step is skipped and S is halved. After
``growth_interval`` clean steps in a row, S is doubled again, to stay as large as is safe.

    scaler = minitorch.amp.GradScaler("cpu")
    with minitorch.autocast("cpu"):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)     # unscales, then steps unless a gradient is inf/NaN
    scaler.update()            # halve S after a skipped step, double it after N clean ones

The sequence of scales and skipped steps is PyTorch's (``torch.amp.GradScaler``). As there,
the scale is a float32 number: every new value is rounded to float32 (so a backoff of 0.3
gives the same 45.900001525878906 as PyTorch), and it only grows while it stays finite in
float32.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.grad_mode import no_grad
from minitorch.errors import MiniTorchError, MiniTorchValueError
from minitorch.switches import SWITCHES
from minitorch.tensor import Tensor

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScalerAssertionError(MiniTorchError, AssertionError):
    """A misuse PyTorch reports with ``assert`` (an AssertionError): both kinds catch it here."""


class GradScalerValueError(MiniTorchValueError, AssertionError):
    """A bad constructor argument: a ValueError, and an AssertionError as PyTorch raises."""


def _float32(value: float) -> float:
    """``value`` rounded to float32 (inf if it overflows), as PyTorch stores its scale."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


class GradScaler:
    """Dynamic loss scaling for mixed-precision training (PyTorch's semantics)."""

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = backends.normalize_device(device)
        if enabled and not backends.get(self._device).probe()[0]:
            warnings.warn(
                f"GradScaler is enabled, but the {self._device!r} device is not available; disabling it "
                "(create it with GradScaler('cpu') to scale losses on the CPU)",
                stacklevel=2,
            )
            enabled = False
        if not growth_factor > 1.0:
            raise GradScalerValueError(f"GradScaler: the growth factor must be > 1.0, got {growth_factor}")
        if not 0.0 < backoff_factor < 1.0:
            raise GradScalerValueError(f"GradScaler: the backoff factor must be < 1.0 (and > 0), got {backoff_factor}")
        if not isinstance(growth_interval, int) or isinstance(growth_interval, bool) or growth_interval < 1:
            raise ValueError(f"GradScaler: growth_interval must be a positive int, got {growth_interval!r}")
        if not (init_scale > 0 and math.isfinite(init_scale)):
            raise ValueError(f"GradScaler: init_scale must be a positive finite number, got {init_scale}")
        self._enabled = bool(enabled)
        # PyTorch makes its float32 scale at the first scale(); until then state_dict() and
        # get_scale() give init_scale as it was passed (3.3, not 3.299999952316284).
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = growth_interval
        self._growth_tracker = 0  # clean steps in a row since the last change of scale
        self._scale_made = False  # set by the first scale(): unscale_/step/update need it, as in PyTorch
        self._per_optimizer: dict[int, dict[str, Any]] = {}  # id(optimizer) -> stage, found_inf

    # ------------------------------------------------------------------ the training-step API
    def scale(self, outputs: Any) -> Any:
        """``outputs * scale`` (a tensor, or a list/tuple of them); recorded, so backward scales too."""
        if not self._enabled:
            return outputs
        tracer = SWITCHES.tracer
        if tracer is not None and tracer.recording:  # minitorch.compile is recording the step
            tracer.graph_break("GradScaler's scale changes between steps: a replay would freeze it")
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if not isinstance(outputs, Tensor):
            raise TypeError(f"GradScaler.scale: expected a Tensor (the loss), got {type(outputs).__name__}")
        self._scale = _float32(self._scale)
        self._scale_made = True
        # The scale is a 0-d float32 tensor, as PyTorch's: a 0-d float16 loss becomes float32
        # (so 65536 * loss does not overflow float16), a float64 loss stays float64.
        scale = backends.module_of(outputs.data).asarray(self._scale, dtype="float32")
        return outputs * Tensor._make(scale, None, False)

    def unscale_(self, optimizer: Any) -> None:
        """Divide the optimizer's gradients by the scale, and note whether any is inf or NaN.

        Call it before gradient clipping (clip the true gradients); at most once per step.
        """
        if not self._enabled:
            return
        self._check_scale_made("unscale_")
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise MiniTorchError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise MiniTorchError("unscale_() is being called after step().")
        inv_scale = _float32(1.0 / self._scale)  # PyTorch: scale.double().reciprocal().float()
        found_inf = seen_grad = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad.data
                    if g.dtype == "float16":
                        raise MiniTorchValueError(
                            "GradScaler: attempting to unscale float16 gradients; keep the parameters in "
                            "float32 and run the model under minitorch.autocast (float32 master weights)"
                        )
                    seen_grad = True
                    xp = backends.module_of(g)
                    if not bool(xp.isfinite(g).all()):
                        found_inf = True
                    g *= g.dtype.type(inv_scale)
        state["found_inf"] = found_inf if seen_grad else None  # None: nothing was checked
        state["stage"] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (if not done yet), then ``optimizer.step()`` unless a gradient was inf/NaN.

        Returns what ``optimizer.step`` returns, or None when the step was skipped.
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise MiniTorchError("Closure use is not currently supported if GradScaler is enabled.")
        # Without scale() the gradients were never multiplied: dividing them would corrupt the step.
        self._check_scale_made("step")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise MiniTorchError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise GradScalerAssertionError(
                "GradScaler.step: No inf checks were recorded for this optimizer: none of its parameters has a "
                "gradient (call scaler.scale(loss).backward() before scaler.step(optimizer))"
            )
        result = None
        if not state["found_inf"]:
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: Any = None) -> None:
        """Adjust the scale for the next step: halve it after an inf/NaN, double it after
        ``growth_interval`` clean steps; or set ``new_scale``."""
        if not self._enabled:
            return
        self._check_scale_made("update")
        if new_scale is not None:
            value = float(new_scale.item() if hasattr(new_scale, "item") else new_scale)
            if not (value > 0 and math.isfinite(value)):
                raise ValueError(f"GradScaler.update: new_scale must be a positive finite number, got {value}")
            self._scale = _float32(value)
        else:
            checked = [s for s in self._per_optimizer.values() if s["found_inf"] is not None]
            if not checked:
                raise GradScalerAssertionError(
                    "GradScaler.update: no inf checks were recorded before update(); call scaler.step(optimizer) "
                    "(or unscale_) first"
                )
            if any(s["found_inf"] for s in checked):
                self._scale = _float32(self._scale * self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    grown = _float32(self._scale * self._growth_factor)
                    if math.isfinite(grown):  # never grow into inf (float32's: past about 3.4e38)
                        self._scale = grown
                    self._growth_tracker = 0
        self._per_optimizer.clear()

    # ------------------------------------------------------------------ accessors and state
    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        """The factor the scale grows by after ``growth_interval`` clean steps."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Change the growth factor."""
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        """The factor the scale shrinks by after an inf/NaN step."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Change the backoff factor."""
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        """How many clean steps in a row before the scale grows."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Change the growth interval."""
        self._growth_interval = int(new_interval)

    def is_enabled(self) -> bool:
        """False when created with ``enabled=False`` (or for a device that is not available)."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """The scale and its rules, to checkpoint next to the model and the optimizer."""
        if not self._enabled:
            return {}
        return {
            "scale": self._scale,
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""
        if not self._enabled:
            return
        if not isinstance(state_dict, dict):
            raise TypeError(f"GradScaler.load_state_dict: expected a dict, got {type(state_dict).__name__}")
        if len(state_dict) == 0:
            raise MiniTorchError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        missing = {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"} - set(state_dict)
        if missing:
            raise KeyError(f"GradScaler.load_state_dict: missing {sorted(missing)}")
        self._scale = _float32(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])

    def _check_scale_made(self, method: str) -> None:
        """PyTorch's check: ``method`` needs a scale, which the first ``scale(loss)`` makes."""
        if not self._scale_made:
            raise GradScalerAssertionError(
                f"GradScaler.{method}: attempted {method} but the scale was never made, so no inf checks were "
                "recorded either: scaler.scale(loss) was not called (use scaler.scale(loss).backward() before "
                "scaler.step(optimizer) and scaler.update())"
            )

    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": None})
