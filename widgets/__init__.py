"""The visual layer of MiniTorch: see the graph, the gradients, the training, and check your code.

    from widgets import draw_graph, check_backward
    draw_graph(loss, params=model)                         # the graph behind a loss
    BackwardStepper(loss)                                  # step through backward
    check_backward(Mul, my_mul_backward, shapes=[((3,), (3,))])
    monitor = TrainingMonitor(model=model, grad_flow=True)   # live curves: monitor.update(step, loss=...)
    gradient_flow(model)                                     # gradient norm per parameter
    decision_boundary(model, X, y)                           # a 2-D classifier's regions
    progress()                                               # every lesson's exercises, from the saved notebooks

``minitorch`` never imports this package; it watches the engine through
``minitorch.autograd.add_backward_observer`` (registered when this package is imported).
"""

from widgets import plotting, recorder
from widgets.attention import attention_map
from widgets.backward_checker import check_backward
from widgets.boundary import decision_boundary
from widgets.check_result import CheckResult
from widgets.exercises import Progress, Scoreboard, lesson_score, progress
from widgets.function_checker import check_function
from widgets.graph import draw_graph
from widgets.monitor import GradientFlow, TrainingMonitor, gradient_flow
from widgets.stepper import BackwardStepper

recorder.install()
plotting.register_png_formatter()

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
    "gradient_flow",
    "lesson_score",
    "progress",
]
