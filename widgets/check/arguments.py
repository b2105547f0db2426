"""Argument checks: every error names the widget or checker, the argument and what was passed.

A learner reads one line and knows what to change::

    draw_graph: root must be a minitorch Tensor (the result you want to see), got float 3.0

``what(value)`` describes a value in a few words; the ``need_*`` helpers raise a
``TypeError`` (wrong kind of value) or ``ValueError`` (right kind, bad value), as PyTorch does.

The checkers never raise into the notebook: a wrong call (``check_backward(Mul, shapes=(3, 4))``,
``args=1``, an empty case list...) gives a failed ``CheckResult`` whose message starts
"Bad arguments to check_backward:" and says what to pass instead. ``normalise_cases`` turns
``shapes=`` into one tuple of shapes per case (a float stays a Python-number operand, an
array an input's exact values), or says what is wrong with it.
"""

import numbers
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from minitorch.autograd import Function
from minitorch.tensor import Tensor
from widgets.check import scoreboard
from widgets.check.check_result import FAILED, CheckResult, CheckRow
from widgets.i18n import _

RANKDIRS = ("LR", "TB", "RL", "BT")
_SIZE = re.compile(r"^\s*\d+(\.\d*)?\s*(,\s*\d+(\.\d*)?\s*)?!?\s*$")


def is_module(value: Any) -> bool:
    """True for a Module (anything with ``named_parameters()``), without importing ``minitorch.nn``."""
    return callable(getattr(value, "named_parameters", None))


def what(value: Any, limit: int = 40) -> str:
    """A value in a few words: ``float 3.0``, ``str 'abc'``, ``Tensor of shape (3,)``, ``Linear (a Module)``."""
    if isinstance(value, Tensor):
        return _("a Tensor of shape {shape}", shape=tuple(value.shape))
    if isinstance(value, np.ndarray):
        return _("a NumPy array of shape {shape}", shape=value.shape)
    if is_module(value):
        return _("{name} (a Module)", name=type(value).__name__)
    if isinstance(value, type):
        return _("the class {name}", name=value.__name__)
    if callable(value) and hasattr(value, "__name__"):
        return _("the function {name}", name=value.__name__)
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    if value is None or isinstance(value, bool):
        return text
    return f"{type(value).__name__} {text}"


def need_tensor(widget: str, arg: str, value: Any, hint: str = "") -> Tensor:
    """``value`` must be a minitorch Tensor; the error suggests the likely fix."""
    if isinstance(value, Tensor):
        return value
    if not hint:
        if is_module(value):
            hint = _("; pass the tensor the model computed (e.g. its loss), not the model")
        elif isinstance(value, (np.ndarray, numbers.Number, list)):
            hint = _("; plain numbers and arrays have no graph: compute it from tensors with requires_grad=True")
    raise TypeError(_("{widget}: {arg} must be a minitorch Tensor, got {value}{hint}", widget=widget, arg=arg,
                      value=what(value), hint=hint))


def need_bool(widget: str, arg: str, value: Any) -> bool:
    """``value`` must be True or False (a Module or tensor here is usually a misplaced positional argument)."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    hint = ""
    if is_module(value) or isinstance(value, (Tensor, dict)):
        hint = _("; did you mean params={params}? pass it by name", params="model" if is_module(value) else "...")
    raise TypeError(_("{widget}: {arg} must be True or False, got {value}{hint}", widget=widget, arg=arg,
                      value=what(value), hint=hint))


def need_int(widget: str, arg: str, value: Any, minimum: int = 1) -> int:
    """A whole number ``>= minimum`` (not a bool, not None)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(_("{widget}: {arg} must be a whole number >= {minimum}, got {value}", widget=widget, arg=arg,
                          minimum=minimum, value=what(value)))
    if value < minimum:
        raise ValueError(_("{widget}: {arg} must be >= {minimum}, got {value}", widget=widget, arg=arg,
                           minimum=minimum, value=value))
    return int(value)


def need_number(widget: str, arg: str, value: Any, low: float | None = None, high: float | None = None,
                low_open: bool = False, high_open: bool = False) -> float:
    """A real number (not a bool) in ``[low, high]`` (a side is open when asked)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(_("{widget}: {arg} must be a number, got {value}", widget=widget, arg=arg, value=what(value)))
    value = float(value)
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high or value != value:
        lo = "" if low is None else f"{low} {'<' if low_open else '<='} "
        hi = "" if high is None else f" {'<' if high_open else '<='} {high}"
        raise ValueError(_("{widget}: {arg} must be {range}, got {value}", widget=widget, arg=arg,
                           range=f"{lo}{arg}{hi}", value=value))
    return value


def need_rankdir(widget: str, value: Any) -> str:
    """``value`` must be one of ``RANKDIRS`` (a lower-case one gets a hint to write it in capitals)."""
    if value in RANKDIRS:
        return value
    hint = ""
    if isinstance(value, str) and value.upper() in RANKDIRS:
        hint = _("; write it in capitals: rankdir={rankdir}", rankdir=repr(value.upper()))
    raise ValueError(_("{widget}: rankdir must be one of {choices} (left to right, top to bottom, ...), got "
                       "{value}{hint}", widget=widget, choices=", ".join(map(repr, RANKDIRS)), value=what(value),
                       hint=hint))


def need_size(widget: str, value: Any) -> str | None:
    """``None``, ``"width,height"`` in inches, or a pair of positive numbers (turned into that string)."""
    if value is None or (isinstance(value, str) and _SIZE.match(value)):
        return value
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in value):
        return f"{value[0]:g},{value[1]:g}"
    raise ValueError(_('{widget}: size must be "width,height" in inches (e.g. "10,30") or None, got {value}',
                       widget=widget, value=what(value)))


def need_names(widget: str, names: Any) -> dict[str, Tensor]:
    """``names``: a ``{name: tensor}`` dict (or None); every value a Tensor."""
    if names is None:
        return {}
    if not isinstance(names, dict):
        raise TypeError(_("{widget}: names must be a dict {{name: tensor}}, e.g. names={{'h': h}}, got {value}",
                          widget=widget, value=what(names)))
    return _named_tensors(widget, "names", names.items())


def _named_tensors(widget: str, arg: str, pairs: Iterable[tuple[Any, Any]]) -> dict[str, Tensor]:
    out = {}
    for name, tensor in pairs:
        if not isinstance(name, str):
            raise TypeError(_("{widget}: the names in {arg} must be strings, got {value}", widget=widget, arg=arg,
                              value=what(name)))
        if not isinstance(tensor, Tensor):
            raise TypeError(_("{widget}: {arg}[{name}] must be a Tensor, got {value}", widget=widget, arg=arg,
                              name=repr(name), value=what(tensor)))
        out[name] = tensor
    return out


def need_params(widget: str, params: Any) -> tuple[dict[str, Tensor], dict[str, str]]:
    """``({dotted name: tensor}, {module path: class name})`` from what ``params=`` may be.

    A Module; a ``{name: tensor}`` dict; ``named_parameters()`` (pairs, even as a
    generator). Bare tensors (``model.parameters()``) carry no names to show: the error
    says what to pass instead.
    """
    if params is None:
        return {}, {}
    if is_module(params):
        modules = {}
        named_modules = getattr(params, "named_modules", None)
        if named_modules is not None:
            modules = {path: type(m).__name__ for path, m in named_modules() if path}
        return _named_tensors(widget, "params", params.named_parameters()), modules
    if isinstance(params, dict):
        return _named_tensors(widget, "params", params.items()), {}
    fix = _("pass the model itself (params=model) or params=dict(model.named_parameters())")
    if isinstance(params, (Tensor, str, bytes)) or not hasattr(params, "__iter__"):
        raise TypeError(_("{widget}: params must be a Module or a {{name: tensor}} dict; got {value}: {fix}",
                          widget=widget, value=what(params), fix=fix))
    items = list(params)
    if all(isinstance(p, tuple) and len(p) == 2 for p in items):
        return _named_tensors(widget, "params", items), {}
    if all(isinstance(p, Tensor) for p in items):
        raise TypeError(_("{widget}: params got {n} tensors without names (model.parameters()?): {fix}",
                          widget=widget, n=len(items), fix=fix))
    bad = next(p for p in items if not isinstance(p, (Tensor, tuple)))
    raise TypeError(_("{widget}: params must hold (name, tensor) pairs, found {value}: {fix}", widget=widget,
                      value=what(bad), fix=fix))


# ---------------------------------------------------------------------- the checkers' own arguments
class BadArguments(Exception):
    """check_backward / check_function was called wrongly; the message says how to call it."""


def bad_arguments_result(checker: str, name: Any, op: Any, problem: str, columns: Sequence[str]) -> CheckResult:
    """A failed ``CheckResult`` saying the check itself was called wrongly (recorded like any check)."""
    if not isinstance(name, str) or not name:
        name = getattr(op, "__name__", None) if isinstance(getattr(op, "__name__", None), str) else checker
    row = CheckRow("-", False, problem, {"input": "-"}, input=None, error_fd=None, error_ref=None)
    result = CheckResult(name, columns, [row], FAILED, _("Bad arguments to {checker}: {problem}", checker=checker,
                                                         problem=problem))
    scoreboard.record(result)
    return result


def check_backward_arguments(op: Any, backward: Any, reference: Any, args: Any, domain: Any, atol: Any, rtol: Any,
                             name: Any) -> None:
    """Raise ``BadArguments`` saying what to pass, for the slips a learner is likely to make."""
    if isinstance(op, Function):
        raise BadArguments(_("op is an instance of {cls}; pass the class itself: check_backward({cls}, ...)",
                             cls=type(op).__name__))
    if isinstance(op, str):
        raise BadArguments(_("op is the string {op}; pass the Function class or function itself, not its name",
                             op=repr(op)))
    if not callable(op):
        raise BadArguments(_("op must be a Function class (e.g. Mul) or a function of tensors, got {value}",
                             value=what(op)))
    is_function = isinstance(op, type) and issubclass(op, Function)
    if backward is not None and not callable(backward):
        raise BadArguments(_("backward must be your function backward(ctx, grad_output), got {value}",
                             value=what(backward)))
    if backward is not None and not is_function:
        raise BadArguments(_("backward= is only used with a Function class (check_backward(Mul, my_backward)); "
                             "a plain function is checked through the engine: leave backward out"))
    if reference is not None and not callable(reference):
        raise BadArguments(_("reference must be a Function class or a function, got {value}", value=what(reference)))
    if not isinstance(args, (tuple, list)):
        raise BadArguments(_("args must be a tuple of the extra arguments, e.g. args=({args},), got {value}",
                             args=repr(args), value=what(args)))
    if domain is not None and not (isinstance(domain, (tuple, list)) and len(domain) == 2
                                   and all(isinstance(v, (int, float)) for v in domain) and domain[0] < domain[1]):
        raise BadArguments(_("domain must be a pair (low, high) with low < high, e.g. (-2.0, 2.0), got {value}",
                             value=what(domain)))
    for arg, value in (("atol", atol), ("rtol", rtol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise BadArguments(_("{arg} must be a number >= 0, got {value}", arg=arg, value=what(value)))
    if name is not None and not isinstance(name, str):
        raise BadArguments(_("name must be a string, got {value}", value=what(name)))


def _shape(value: Any, where: str) -> tuple[int, ...]:
    """One shape as a tuple of ints >= 0, or ``BadArguments``."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        raise BadArguments(_("{where}: {value} is not a shape; a shape is a tuple of sizes like (2, 3)", where=where,
                             value=what(value)))
    if any(v < 0 for v in value):
        raise BadArguments(_("{where}: shape {shape} has a negative size", where=where, shape=tuple(value)))
    return tuple(int(v) for v in value)


def normalise_cases(shapes: Any, exact: int | None = None) -> list[tuple[Any, ...]]:
    """Every case as a tuple of shapes, one per input; ``exact``: how many inputs each case must have."""
    if not isinstance(shapes, (list, tuple)):
        raise BadArguments(_("shapes must be a list of cases, e.g. shapes=[(3,), (2, 3)], got {value}",
                             value=what(shapes)))
    if not shapes:
        raise BadArguments(_("shapes is empty, so nothing would be checked: give at least one case, e.g. "
                             "shapes=[(3,)]"))
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in shapes):
        raise BadArguments(_("shapes={shape} is one shape, not a list of cases: write shapes=[{shape}]",
                             shape=tuple(shapes)))
    cases = []
    for i, case in enumerate(shapes, 1):
        if isinstance(case, (tuple, list)) and all(isinstance(v, (int, np.integer)) for v in case):
            case = (case,)  # one input given as one shape
        elif not isinstance(case, (tuple, list)):
            case = (case,)
        # a float is a Python-number operand, an array an input's exact values; the rest are shapes
        case = tuple(s if isinstance(s, (float, np.ndarray)) and not isinstance(s, np.floating)
                     else _shape(s, _("case {i}", i=i)) for s in case)
        if exact is not None and len(case) != exact:
            raise BadArguments(_("case {i} gives {n} shape(s) but forward takes {exact} tensor input(s): write each "
                                 "case as a tuple of {exact} shapes, e.g. {example}", i=i, n=len(case), exact=exact,
                                 example=tuple([(3,)] * exact)))
        cases.append(case)
    return cases
