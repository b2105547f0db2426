"""Each lesson's promise, measured (lessons 00-05 and 07-09): what the text says the learner
will see is what the stored outputs of lessons/solutions/NN_*.ipynb show.

The numbers are read from the markdown where the text states them, so text and output
cannot drift apart; lessons 06 and 12 are covered with their graphs' tests.
"""

import math

import pytest
from lesson_outputs import Lesson, number, numbers, says_true


@pytest.fixture(scope="module")
def lessons():
    cache = {}

    def get(n):
        if n not in cache:
            cache[n] = Lesson(n)
        return cache[n]
    return get


def test_00_nudging_agrees_and_the_line_is_learned(lessons):
    l00 = lessons("00")
    # the chain rule by hand gives 6 for d loss / d w; backward and the nudge print it
    by_hand = number(r"= (\d+),\s*\\qquad", l00.text("l00-11"))
    out = l00.output("l00-19")
    assert number(r"backward says ([\d.]+)", out) == by_hand
    assert abs(number(r"nudging says ([\d.]+)", out) - by_hand) < 1e-3
    # "In float64 the sweet spot of the central difference is around ε = 1e-5"
    promised = number(r"sweet spot of the\s+central difference is around ε = (1e-\d+)", l00.text("l00-20"))
    best = number(r"most accurate at ε = ([\de.+-]+)", l00.output("l00-21b"))
    assert abs(math.log10(best) - math.log10(promised)) <= 1, (best, promised)
    # "20 noisy points drawn around y = 3x + 0.5": the fit lands near both, the loss falls
    text = l00.text("l00-22")
    true_w, true_b = number(r"y = (\d+)x \+ ([\d.]+)", text), number(r"y = (\d+)x \+ ([\d.]+)", text, 2)
    out = l00.output("l00-23")
    assert abs(number(r"learned w = ([\d.-]+)", out) - true_w) < 0.3
    assert abs(number(r"b = ([\d.-]+)", out) - true_b) < 0.2
    first, last = numbers(r"([\d.]+) (?:before|at step)", l00.output("l00-23b"))
    assert last < first / 10


def test_01_views_share_memory_and_copies_do_not(lessons):
    l01 = lessons("01")
    assert "Python integers give `int64`" in l01.text("l01-04")
    dtypes = l01.output("l01-05")
    assert "from Python floats : minitorch.float32" in dtypes and "from Python ints   : minitorch.int64" in dtypes
    views = l01.output("l01-15")
    assert views.count("shares memory with x: True") == 3
    # "`x.T.view(12)` fails with a message that says what to do; `reshape` copies when it must"
    out = l01.output("l01-20")
    assert "use .reshape(...) or .contiguous().view(...)" in out and "copied? True" in out
    # "The repetition is free: it is a view with **stride 0** along the broadcast dimension"
    assert "stride 0" in l01.text("l01-22")
    assert "col expanded to (3, 5) has strides (1, 0)" in l01.output("l01-23")


def test_02_all_six_ops_run_the_learners_backward(lessons):
    l02 = lessons("02")
    assert "`+`, `-`, `*`, `/`, unary `-` and `**` in MiniTorch run *your*" in l02.text("l02-00")
    out = l02.output("l02-38")
    assert "gradcheck passed" in out
    assert "['Add', 'Sub', 'Mul', 'Div', 'Neg', 'Pow']" in out
    assert "tensor([-2.,  6.])   (expected 2x = [-2.0, 6.0] )" in l02.output("l02-36")
    assert "6 of 6 exercises passed" in l02.output("l02-41")


def test_03_a_broadcast_input_gets_the_sum(lessons):
    l03 = lessons("03")
    # grad_output is arange(15) as (3, 5): a's gradient is its row sums, b's its column sums
    out = l03.output("l03-05")
    rows = [sum(range(5 * i, 5 * i + 5)) for i in range(3)]
    columns = [sum(range(j, 15, 5)) for j in range(5)]
    a_part, b_part = out.split("b.grad")
    assert numbers(r"(\d+)\.", a_part) == rows and numbers(r"(\d+)\.", b_part) == columns
    assert "equals the batch sum of the upstream gradient" in l03.output("l03-19")
    assert "Add runs your backward | Mul runs your backward" in l03.output("l03-19")


def test_04_the_order_waits_and_deep_graphs_run(lessons):
    l04 = lessons("04")
    # the MulBackward of a = x * 2 waits for both consumers: it runs last, after the AddBackward
    order = l04.output("l04-15")
    assert order.strip().endswith("SumBackward -> MulBackward -> AddBackward -> MulBackward")
    # "20,000 ops in a chain": all of them are in the order (plus the loss's own node)
    ops = number(r"([\d,]+) ops in a chain", l04.text("l04-21"))
    assert number(r"nodes in order: (\d+)", l04.output("l04-22")) == ops + 1
    # "a second backward **adds** the same gradient again"
    once, again, cleared = l04.output("l04-18").strip().split("\n")
    once, again = (numbers(r"(\d+)\.", line.split("tensor")[1].split(")")[0]) for line in (once, again))
    assert again == [2 * g for g in once] and cleared.endswith("None")


def test_05_the_ring_network_trains_on_the_learners_ops(lessons):
    l05 = lessons("05")
    nine = l05.text("l05-00")
    assert "the backward of nine of them" in nine
    ops = l05.output("l05-38").split("backward:")[1].split(",")
    assert len(ops) == 9
    first = number(r"initial loss ([\d.]+)", l05.output("l05-36"))
    out = l05.output("l05-40")
    assert abs(number(r"loss fell from ([\d.]+)", out) - first) <= 0.0051   # printed to 3 and to 2 digits
    assert number(r"to below ([\d.]+)", out) < first / 2
    assert number(r"accuracy above (\d+)%", out) >= 95
    # "a gradient that crosses ten sigmoid layers shrinks by at least 0.25^10 ≈ 10^-6"
    assert "0.25^{10} \\approx 10^{-6}" in l05.text("l05-33")
    assert round(math.log10(0.25**10)) == -6


def test_07_initialisation_moves_the_gradient_as_the_text_says(lessons):
    l07 = lessons("07")
    text = l07.text("a8edc703")
    out = l07.output("ccd0f631")
    small, good, large = numbers(r"weight: ([\de.+-]+)", out)
    below, above = number(r"10\^\{(\d+)\}\$ times below", text), number(r"10\^\{(\d+)\}\$ times above", text)
    assert abs(math.log10(good / small) - below) < 1, (good / small, below)
    assert abs(math.log10(large / good) - above) < 1, (large / good, above)
    assert "eighteen orders of magnitude" in text and math.floor(math.log10(large / small)) == 18
    # the race: plain SGD stays above the bar the other two pass
    race = l07.output("c9da17ce")
    assert "SGD lr=0.1                 final loss >= 0.1, accuracy <= 95%" in race
    assert "SGD lr=0.1, momentum=0.9   final loss < 0.1, accuracy > 95%" in race
    assert "Adam lr=0.01               final loss < 0.1, accuracy > 95%" in race
    assert "3 of 3 exercises passed" in l07.output("a7812029")


def test_08_the_mlp_reaches_97_percent_in_460_steps(lessons):
    l08 = lessons("08")
    promised = number(r"At least (\d+)% on images the network never saw, from about (\d+)", l08.text("dc4c81a2"))
    steps = number(r"At least (\d+)% on images the network never saw, from about (\d+)", l08.text("dc4c81a2"), 2)
    assert f"to at least {promised:.0f}% test" in l08.text("59a8f485")
    out = l08.output("087670df")
    assert number(r"(\d+) steps", out) == steps
    assert says_true(f"test accuracy at least {promised:.0f}%", out)
    # without zero_grad() the loss "ends far above where it started"
    assert "ends far above where it started" in l08.text("ec1a33d8")
    assert says_true("twice that", l08.output("91313ea8"))
    # accumulation: the same loss and the same weights as one big step
    accumulated = l08.output("da32d58a")
    losses = numbers(r"loss ([\d.]+)", accumulated)
    assert len(losses) == 2 and losses[0] == losses[1]
    assert says_true("same weights after the step", accumulated)


def test_09_vectorising_gains_a_factor_of_100(lessons):
    l09 = lessons("09")
    factor = number(r"a factor of (\d+) or more", l09.text("ee238ae7"))
    timings = l09.output("76cd9386")
    assert number(r"vectorised offsets\s+[\d.]+ ms\s+\(\s*(\d+)x the loops", timings) >= factor
    assert number(r"im2col\s+[\d.]+ ms\s+\(\s*(\d+)x the loops", timings) >= factor
    # "`cols` is about 9 times the size of the input for a 3×3 kernel"
    assert "is about 9 times the size of the input" in l09.text("ee238ae7")
    assert abs(number(r"\(([\d.]+)x\)", l09.output("1e4372a1")) - 9) < 0.5
    assert says_true("test accuracy after 6 epochs above 95%", l09.output("e48c2e0f"))
    assert "trained for 6 epochs" in l09.text("254d1935")
