"""The module paths the widgets had before they were sorted into ``draw``, ``check`` and ``lessons``.

Lessons saved by learners import ``widgets.hints``, ``widgets.stepper``,
``from widgets import loss_scaling``...; those lines keep working. Each old name is the
very module at its new place (the same object, registered under both names), not a copy.
"""

import importlib
import sys
import types

# old name (under ``widgets``) -> the module's place now
OLD_PATHS = {
    "attention": "widgets.draw.attention",
    "boundary": "widgets.draw.boundary",
    "graph": "widgets.draw.graph",
    "monitor": "widgets.draw.monitor",
    "picture": "widgets.draw.picture",
    "plotting": "widgets.draw.plotting",
    "recorder": "widgets.draw.recorder",
    "stepper": "widgets.draw.stepper",
    "argcheck": "widgets.check.arguments",
    "checker_args": "widgets.check.arguments",
    "backward_checker": "widgets.check.backward_checker",
    "check_result": "widgets.check.check_result",
    "exercises": "widgets.check.scoreboard",
    "function_checker": "widgets.check.function_checker",
    "hints": "widgets.check.mistakes",
    "accumulation": "widgets.lessons.lesson08_accumulation",
    "conv_parts": "widgets.lessons.lesson09_conv_parts",
    "cuda_c": "widgets.lessons.lesson10_cuda_c",
    "loss_scaling": "widgets.lessons.lesson14_loss_scaling",
}


def register(package: types.ModuleType) -> None:
    """Make ``package.<old name>`` and ``import <package>.<old name>`` give the module at its new place."""
    for old, new in OLD_PATHS.items():
        module = importlib.import_module(new)
        sys.modules[f"{package.__name__}.{old}"] = module
        setattr(package, old, module)
