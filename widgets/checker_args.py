"""Calling a checker wrongly: ``check_backward(Mul, shapes=(3, 4))``, ``args=1``, an empty case list...

The checkers never raise into the notebook: a wrong call gives a failed ``CheckResult``
whose message starts "Bad arguments to check_backward:" and says what to pass instead.
``normalise_cases`` turns ``shapes=`` into one tuple of shapes per case (a float stays a
Python-number operand, an array an input's exact values), or says what is wrong with it.
"""

import numpy as np

from minitorch.autograd import Function
from widgets import argcheck, exercises
from widgets.check_result import FAILED, CheckResult, CheckRow


class BadArguments(Exception):
    """check_backward / check_function was called wrongly; the message says how to call it."""


def bad_arguments_result(checker, name, op, problem, columns):
    """A failed ``CheckResult`` saying the check itself was called wrongly (recorded like any check)."""
    if not isinstance(name, str) or not name:
        name = getattr(op, "__name__", None) if isinstance(getattr(op, "__name__", None), str) else checker
    row = CheckRow("-", False, problem, {"input": "-"}, input=None, error_fd=None, error_ref=None)
    result = CheckResult(name, columns, [row], FAILED, f"Bad arguments to {checker}: {problem}")
    exercises.record(result)
    return result


def check_backward_arguments(op, backward, reference, args, domain, atol, rtol, name):
    """Raise ``BadArguments`` saying what to pass, for the slips a learner is likely to make."""
    if isinstance(op, Function):
        raise BadArguments(f"op is an instance of {type(op).__name__}; pass the class itself: "
                           f"check_backward({type(op).__name__}, ...)")
    if isinstance(op, str):
        raise BadArguments(f"op is the string {op!r}; pass the Function class or function itself, not its name")
    if not callable(op):
        raise BadArguments(f"op must be a Function class (e.g. Mul) or a function of tensors, got {argcheck.what(op)}")
    is_function = isinstance(op, type) and issubclass(op, Function)
    if backward is not None and not callable(backward):
        raise BadArguments(f"backward must be your function backward(ctx, grad_output), got {argcheck.what(backward)}")
    if backward is not None and not is_function:
        raise BadArguments("backward= is only used with a Function class (check_backward(Mul, my_backward)); "
                           "a plain function is checked through the engine: leave backward out")
    if reference is not None and not callable(reference):
        raise BadArguments(f"reference must be a Function class or a function, got {argcheck.what(reference)}")
    if not isinstance(args, (tuple, list)):
        raise BadArguments(f"args must be a tuple of the extra arguments, e.g. args=({args!r},), "
                           f"got {argcheck.what(args)}")
    if domain is not None and not (isinstance(domain, (tuple, list)) and len(domain) == 2
                                   and all(isinstance(v, (int, float)) for v in domain) and domain[0] < domain[1]):
        raise BadArguments(f"domain must be a pair (low, high) with low < high, e.g. (-2.0, 2.0), got "
                           f"{argcheck.what(domain)}")
    for arg, value in (("atol", atol), ("rtol", rtol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise BadArguments(f"{arg} must be a number >= 0, got {argcheck.what(value)}")
    if name is not None and not isinstance(name, str):
        raise BadArguments(f"name must be a string, got {argcheck.what(name)}")


def _shape(value, where):
    """One shape as a tuple of ints >= 0, or ``BadArguments``."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        raise BadArguments(f"{where}: {argcheck.what(value)} is not a shape; a shape is a tuple of sizes like (2, 3)")
    if any(v < 0 for v in value):
        raise BadArguments(f"{where}: shape {tuple(value)} has a negative size")
    return tuple(int(v) for v in value)


def normalise_cases(shapes, exact=None):
    """Every case as a tuple of shapes, one per input; ``exact``: how many inputs each case must have."""
    if not isinstance(shapes, (list, tuple)):
        raise BadArguments(f"shapes must be a list of cases, e.g. shapes=[(3,), (2, 3)], got {argcheck.what(shapes)}")
    if not shapes:
        raise BadArguments("shapes is empty, so nothing would be checked: give at least one case, e.g. shapes=[(3,)]")
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in shapes):
        raise BadArguments(f"shapes={tuple(shapes)} is one shape, not a list of cases: write shapes=[{tuple(shapes)}]")
    cases = []
    for i, case in enumerate(shapes, 1):
        if isinstance(case, (tuple, list)) and all(isinstance(v, (int, np.integer)) for v in case):
            case = (case,)  # one input given as one shape
        elif not isinstance(case, (tuple, list)):
            case = (case,)
        # a float is a Python-number operand, an array an input's exact values; the rest are shapes
        case = tuple(s if isinstance(s, (float, np.ndarray)) and not isinstance(s, np.floating)
                     else _shape(s, f"case {i}") for s in case)
        if exact is not None and len(case) != exact:
            raise BadArguments(f"case {i} gives {len(case)} shape(s) but forward takes {exact} tensor input(s): "
                               f"write each case as a tuple of {exact} shapes, e.g. {tuple([(3,)] * exact)}")
        cases.append(case)
    return cases
