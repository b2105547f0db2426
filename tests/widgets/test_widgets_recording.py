"""Importing ``widgets`` changes nothing in the engine; the recorder starts when a widget needs it.

(In IPython the import registers the figure formatter: see the last test.)

Each check runs in a fresh interpreter: in this test process other tests have already
opened widgets (and the conftest guard restores observers between tests).
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(code):
    """``code``'s printed lines, run by a new interpreter that imports this checkout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


SETUP = (
    "import minitorch, widgets\n"
    "from widgets.draw import recorder\n"
    "x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
)


def test_importing_widgets_adds_no_backward_observer():
    code = SETUP + (
        "print(len(minitorch.autograd.backward_observers()))\n"
        "loss = (x * x).sum()\n"
        "loss.backward()\n"
        "print(recorder.record_of(loss.grad_fn) is None)\n"
    )
    assert run(code) == ["0", "True"]


def test_draw_graph_starts_recording_and_later_backwards_are_recorded():
    code = SETUP + (
        "loss = (x * x).sum()\n"
        "widgets.draw_graph(loss)\n"  # the forward picture, before backward: recording starts here
        "print(minitorch.autograd.backward_observers() == (recorder._observe,))\n"
        "loss.backward()\n"
        "rec = recorder.record_of(loss.grad_fn)\n"
        "print(rec is not None and float(rec[1]) == 1.0)\n"
        "print('|grad| 1' in widgets.draw_graph(loss).source)\n"
        "widgets.draw_graph(loss)\n"
        "print(len(minitorch.autograd.backward_observers()))\n"  # installed once, not once per picture
    )
    assert run(code) == ["True", "True", "True", "1"]


def test_a_backward_before_recording_started_is_named_in_the_picture():
    code = SETUP + (
        "loss = (x * x).sum()\n"
        "loss.backward()\n"
        "print('recorded from this draw_graph on' in widgets.draw_graph(loss, names={'x': x}).source)\n"
        "print('recorded from this draw_graph on' in widgets.draw_graph(loss, names={'x': x}).source)\n"
    )
    assert run(code) == ["True", "False"]


def test_the_stepper_replays_a_plain_backward_once_recording_has_started():
    code = SETUP + (
        "widgets.record_gradients()\n"
        "loss = (x * x).sum()\n"
        "loss.backward()\n"
        "stepper = widgets.BackwardStepper(loss)\n"
        "print(stepper.source.startswith('replayed'), stepper.order == ['SumBackward', 'MulBackward'])\n"
    )
    assert run(code) == ["True", "True"]


def test_the_png_formatter_is_registered_at_import_in_ipython():
    # So that the lessons' plt.show() figures carry the size of their smallest text (read by
    # the browser test); widgets' own figures register it again when they are made.
    code = (
        "from IPython.testing.globalipapp import get_ipython\n"
        "from matplotlib.figure import Figure\n"
        "shell = get_ipython()\n"
        "png = shell.display_formatter.formatters['image/png']\n"
        "print(Figure in png.type_printers)\n"
        "import widgets\n"
        "from widgets.draw import plotting\n"
        "print(png.type_printers.get(Figure) is plotting.figure_png_with_text_size)\n"
    )
    assert run(code) == ["False", "True"]
