"""The module paths lessons and saved notebooks use keep working after the move into draw/check/lessons."""

import importlib

import numpy as np
import pytest

import widgets
from widgets.old_paths import OLD_PATHS


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_an_old_path_is_the_module_at_its_new_place(old):
    new = importlib.import_module(OLD_PATHS[old])
    assert importlib.import_module(f"widgets.{old}") is new
    assert getattr(widgets, old) is new


def test_the_imports_the_lessons_write_still_work():
    import widgets.hints
    from widgets.cuda_c import run_kernel_body
    from widgets.function_checker import same
    from widgets.hints import constant_factor
    from widgets.stepper import record_backward

    from widgets import accumulation, conv_parts, loss_scaling

    assert widgets.hints.trajectory_compare is widgets.check.mistakes.trajectory_compare
    assert constant_factor(2.0, 1.0) == 2.0 and same(1.0, 1.0)[0]
    assert run_kernel_body("y = x * (T)2", np.ones(2)).tolist() == [2.0, 2.0]
    assert callable(record_backward)
    assert accumulation.__name__.endswith("lesson08_accumulation")
    assert conv_parts.__name__.endswith("lesson09_conv_parts")
    assert loss_scaling.__name__.endswith("lesson14_loss_scaling")


def test_every_public_name_is_still_exported():
    names = {"attention_map", "BackwardStepper", "CheckResult", "GradientFlow", "Progress", "Scoreboard",
             "check_backward", "TrainingMonitor", "check_function", "decision_boundary", "draw_graph",
             "gradient_flow", "lesson_score", "progress"}
    assert names <= set(widgets.__all__)
    assert all(hasattr(widgets, n) for n in widgets.__all__)
