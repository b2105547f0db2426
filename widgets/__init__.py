"""The visual layer of MiniTorch: see the graph, the gradients, the training, and check your code.

    from widgets import draw_graph, check_backward
    draw_graph(loss, params=model)                         # the graph behind a loss
    BackwardStepper(loss)                                  # step through backward
    check_backward(Mul, my_mul_backward, shapes=[((3,), (3,))])

``minitorch`` never imports this package; it watches the engine through
``minitorch.autograd.add_backward_observer`` (registered when this package is imported).
"""

from widgets import recorder
from widgets.checker import CheckResult, check_backward, check_function
from widgets.exercises import Scoreboard, lesson_score
from widgets.graph import draw_graph
from widgets.stepper import BackwardStepper

recorder.install()

__all__ = [
    "BackwardStepper",
    "CheckResult",
    "Scoreboard",
    "check_backward",
    "check_function",
    "draw_graph",
    "lesson_score",
]
