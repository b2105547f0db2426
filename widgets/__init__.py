"""The visual layer of MiniTorch: see the graph, the gradients, the training, and check your code.

    from widgets import draw_graph, check_backward
    draw_graph(loss, params=model)                         # the graph behind a loss
    BackwardStepper(loss)                                  # step through backward
    check_backward(Mul, my_mul_backward, shapes=[((3,), (3,))])
    monitor = TrainingMonitor(model=model, grad_flow=True)   # live curves: monitor.update(step, loss=...)
    gradient_flow(model)                                     # gradient norm per parameter
    decision_boundary(model, X, y)                           # a 2-D classifier's regions
    progress()                                               # every lesson's exercises, from the saved notebooks
    set_language("zh")                                       # every message in Chinese (or MINITORCH_LANG=zh)

Three wings: ``widgets.draw`` (what draws), ``widgets.check`` (the generic checkers) and
``widgets.lessons`` (the checks of one lesson each); ``widgets.style`` (colours, number
formats) is shared by all three. ``minitorch`` never imports this package.

Importing it changes nothing in MiniTorch: the gradient recorder (an engine observer,
``minitorch.autograd.add_backward_observer``) starts with the first ``draw_graph`` or
``BackwardStepper``, or with ``record_gradients()``. It registers the PNG formatter for
matplotlib figures with IPython (``widgets.draw.plotting``), so every figure of a lesson, the
``plt.show()`` ones too, is stored with the size of its smallest text (checked in the browser).
"""

import sys

from widgets import old_paths
from widgets.check.backward_checker import check_backward
from widgets.check.check_result import CheckResult
from widgets.check.function_checker import check_function
from widgets.check.scoreboard import Progress, Scoreboard, lesson_score, progress
from widgets.draw.attention import attention_map
from widgets.draw.boundary import decision_boundary
from widgets.draw.graph import draw_graph
from widgets.draw.monitor import GradientFlow, TrainingMonitor, gradient_flow
from widgets.draw.plotting import register_png_formatter
from widgets.draw.recorder import record_gradients
from widgets.draw.stepper import BackwardStepper
from widgets.i18n import get_language, set_language

old_paths.register(sys.modules[__name__])
register_png_formatter()  # after pyplot's inline backend, which the lessons import first

__all__ = [
    "attention_map",
    "BackwardStepper",
    "CheckResult",
    "GradientFlow",
    "Progress",
    "Scoreboard",
    "check_backward",
    "TrainingMonitor",
    "check_function",
    "decision_boundary",
    "draw_graph",
    "get_language",
    "gradient_flow",
    "lesson_score",
    "progress",
    "record_gradients",
    "set_language",
]
