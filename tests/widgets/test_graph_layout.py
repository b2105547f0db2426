"""draw_graph picks a layout that fits the notebook's width with readable text (widgets/draw/layout.py)."""

import pytest

import minitorch
from widgets import draw_graph
from widgets.draw import layout, recorder


@pytest.fixture(autouse=True)
def _recorder():
    recorder.install()


def chain(length):
    """A chain of ``length`` elementwise ops on one input, and that input."""
    x = minitorch.randn(2, 3, requires_grad=True)
    y = x
    for i in range(length):
        y = (y * 1.5).tanh() if i % 2 else y + 1.0
    return y.sum(), x


def scale_of(picture):
    """How much Graphviz shrinks the picture (1.0: full size)."""
    return float(picture.pipe(format="plain", encoding="utf-8").split()[1])


def test_a_short_chain_stays_left_to_right_at_full_size():
    loss, x = chain(1)
    picture = draw_graph(loss, names={"x": x})
    assert "rankdir=LR" in picture.source and scale_of(picture) == 1.0
    assert layout.natural_size(picture)[0] <= layout.NOTEBOOK_WIDTH_IN


def test_a_long_chain_is_drawn_top_to_bottom_at_full_size():
    loss, x = chain(12)
    assert "rankdir=LR" in draw_graph(loss, rankdir="LR", size=None).source  # too wide that way
    picture = draw_graph(loss, names={"x": x})
    assert "rankdir=TB" in picture.source and scale_of(picture) == 1.0
    width, height = layout.natural_size(picture)
    assert width <= layout.NOTEBOOK_WIDTH_IN < height


def test_a_wide_graph_is_summarised_not_shrunk_unless_show_all():
    x = minitorch.randn(2, 3, requires_grad=True)
    # 12 branches joined by a chain of additions: too wide either way
    loss = sum(((x * float(i)).exp().sum() for i in range(12)), minitorch.tensor(0.0))
    picture = draw_graph(loss, max_nodes=200)
    assert scale_of(picture) >= layout.MIN_SCALE
    assert "Summarised to fit the notebook" in picture.source and "show_all=True" in picture.source
    everything = draw_graph(loss, max_nodes=200, show_all=True)
    assert "more ops" not in everything.source and everything.node_count() > picture.node_count()
    assert scale_of(everything) < layout.MIN_SCALE  # what show_all costs: smaller text


def test_an_explicit_size_and_direction_are_kept():
    loss, _ = chain(12)
    picture = draw_graph(loss, rankdir="LR", size="10,30")
    assert "rankdir=LR" in picture.source and 'size="10,30"' in picture.source


def test_the_stepper_keeps_one_readable_layout_for_every_step():
    from widgets import BackwardStepper

    loss, _ = chain(12)
    stepper = BackwardStepper(loss)
    assert stepper.rankdir == "TB" and stepper.size is None  # a long chain: top to bottom, full size
    for k in (0, len(stepper)):
        picture = stepper.show(k)
        assert "rankdir=TB" in picture.source and layout.natural_size(picture)[0] <= layout.NOTEBOOK_WIDTH_IN
