"""Each lesson's promise, measured (lessons 10, 11 and 13-18): what the text says the learner
will see is what the stored outputs of lessons/solutions/NN_*.ipynb show.

The numbers are read from the markdown where the text states them, so text and output
cannot drift apart. Timings are stored as one run printed them; the tests hold the text to
what that run shows, not to a speed of their own.
"""

import math
import re
from pathlib import Path

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


def test_10_per_op_copies_add_up_and_resident_data_moves_nothing(lessons):
    l10 = lessons("10")
    images = number(r"MLP on ([\d,]+)\s+MNIST-sized images", l10.text("2dff517c"))
    out = l10.output("c061f797")
    up, down, total = (number(pattern, out) for pattern in (r"([\d.]+) MB up", r"([\d.]+) MB down", r"= +([\d.]+) MB"))
    assert abs(up + down - total) <= 0.11
    copies, steps = number(r"in (\d+) separate copies", out), number(r"one epoch \((\d+) steps\)", out)
    assert steps == images // 512
    assert number(r"GB, (\d+) copies", out) == copies * steps
    assert abs(number(r"([\d.]+) GB", out) - total * steps / 1e3) < 0.01
    # "a training step moves nothing across the bus"
    assert "a training step moves nothing across the bus" in l10.text("c39c86e4")
    assert "resident data: 0 copies per step" in out


def test_11_the_nan_hunt_finds_what_the_text_says(lessons):
    l11 = lessons("11")
    out = l11.output("f8cbb627")
    first_bad = number(r"first non-finite loss at step: (\d+)", out)
    losses = [float(v) for v in re.findall(r"'([^']+)'", out.split("losses around it:")[1])]
    # "The loss rose for two steps, then became `nan` and stayed `nan`"
    assert "rose for two steps, then became `nan` and stayed `nan`" in l11.text("312ca602")
    finite = [v for v in losses if not math.isnan(v)]
    assert len(finite) == 3 and finite[0] < finite[1] < finite[2] and all(math.isnan(v) for v in losses[3:])
    replay = l11.output("59e3699c")
    step = number(r"step (\d+): loss", replay)
    assert step == first_bad - 1 and number(r"loss = ([\d.]+)", replay) == finite[-1]
    assert "non-finite forward values: []" in replay and "0.weight.grad" in replay
    # p ≈ e^-100.1 ≈ 3e-44 is representable; 1/p ≈ 3e43 is beyond float32's 3.4e38
    text = l11.text("9783652c")
    log_p = number(r"smallest log-probability = ([-\d.]+)", replay)
    assert number(r"e\^\{(-[\d.]+)\}", text) == log_p
    p = math.exp(log_p)
    assert abs(math.log10(p) - math.log10(number(r"\\approx (\d)\\times10\^\{(-\d+)\}", text) * 10 ** number(
        r"\\approx (\d)\\times10\^\{(-\d+)\}", text, 2))) < 0.5
    largest = number(r"float32's largest number, \$([\d.]+)\\times10\^\{38\}", text) * 1e38
    assert 1.4e-45 < p < 1.2e-38 < largest < 1 / p          # a float32 denormal, whose inverse overflows
    assert "'LogBackward' returned inf" in l11.output("fc828229")
    assert says_true("all losses finite with F.cross_entropy", l11.output("f72649b1"))


def test_13_the_samples_show_real_words_as_the_loss_nears_2(lessons):
    l13 = lessons("13")
    text = l13.text("6161c69e")
    epochs = number(r"Adam, (\d+) epochs of (\d+) steps", text)
    out = l13.output("85270eed")
    losses = numbers(r"val loss ([\d.]+)", out)
    assert len(losses) == epochs
    near = number(r"with the loss near (\d+)", text)
    chance = number(r"\\approx ([\d.]+)\$ nats per character", text)
    assert abs(losses[-1] - near) < 0.3 and losses[-1] < chance / 2 and math.isclose(math.log(95), chance, abs_tol=0.1)
    assert number(r"\n(\d+) s\n", out) < 60                                # "well under a minute here"
    # the check counts the epochs the loss fell in: the same count as the printed losses
    fell = sum(later < earlier for earlier, later in zip(losses, losses[1:]))
    check = l13.output("2983ccb7")
    assert number(r"fell in (\d+) of", check) == fell and number(r"of the (\d+) epochs", check) == epochs - 1
    # "short real words ... appear among invented ones": the listed words are in the last sample
    found, of = number(r"training text: (\d+) of (\d+)", out), number(r"training text: (\d+) of (\d+)", out, 2)
    words = out.split("training text: ")[1].split(": ", 1)[1].strip().split(", ")
    last_sample = re.findall(r"epoch +\d+ +val loss [\d.]+ +\| (.*)", out)[-1]
    assert len(words) == found >= 2 and found < of
    assert all(re.search(rf"\b{w}\b", last_sample) for w in words)
    assert any(len(w) <= 3 for w in words) and any(len(w) >= 5 for w in words)   # short ones and a longer one


def test_14_float16_rounds_to_0_at_or_below_2_to_the_minus_25(lessons):
    l14 = lessons("14")
    text = l14.text("b79830ae")
    exponent = number(r"a value of \$2\^\{(-\d+)\} \\approx 3\\cdot 10\^\{-8\}\$ or less becomes 0", text)
    out = l14.output("dffc426c")
    inputs, shown = [1e-5, 1e-7, 1e-8], re.findall(r"'([^']+)'", out.split("1e-5, 1e-7, 1e-8 in float16:")[1])
    for x, value in zip(inputs, shown):
        assert (float(value) == 0) == (x <= 2.0**exponent), (x, value)
    assert "smallest subnormal 5.96e-08" in out and math.isclose(2.0**-24, 5.96e-08, rel_tol=1e-3)
    assert "65504, 65519, 65520 in float16: [65504.0, 65504.0, inf]" in out
    grads = l14.output("2a0156dd")
    assert f"at most 2^{exponent:.0f} (rounded to 0" in grads
    # "only a few gradients in a thousand vanish ..., but over 90% of them sit in the subnormal range"
    promise = l14.text("8c69bc56")
    assert "only a few gradients in a thousand vanish" in promise
    flushed = number(r"no scaling:\s+([\d.]+)%", grads)
    assert 0.1 <= flushed < 1
    subnormal = number(r"over (\d+)% of them sit in the subnormal range", promise)
    assert number(r"below 2\^-14 \(subnormal or 0 in float16\):\s+([\d.]+)%", grads) > subnormal
    assert number(r"loss x 65536:\s+([\d.]+)%", grads) == 0
    # on a CPU float16 is slower, and mixed precision no speed-up
    timing = l14.output("e2003213")
    assert number(r"\((\d+)x slower\)", timing) > 1 and number(r"took ([\d.]+)x the time", timing) >= 0.9
    assert "test accuracy at least 96.5% in mixed precision: True; within 1 point of float32: True" in l14.output(
        "dff89c5a")


def test_15_the_ring_and_two_ranks_keep_their_promises(lessons):
    l15 = lessons("15")
    assert "built from `sendrecv`" in l15.text("7b7460ea")
    assert says_true("after 6 steps every chunk on every rank holds a+b+c+d", l15.output("04ecca3e"))
    assert says_true("your ring matches MPI's Allreduce", l15.output("969c01b1"))
    # "the test accuracy comes out within a point of one process training on whole batches of 64"
    assert "within a point of one process" in l15.text("55bdf007")
    compared = l15.output("9c4e2b17")
    two, one = number(r"2 ranks ([\d.]+)%", compared), number(r"one process ([\d.]+)%", compared)
    assert abs(two - one) <= 1
    assert number(r"final test accuracy ([\d.]+)%", l15.output("3d251001")) == two
    # the cost model: 2(N-1) steps, and the bytes per rank approach 2n
    costs = l15.output("2c426bf9")
    n = number(r"gradient: ([\d.]+) MB", costs)
    for ranks, steps, sent in re.findall(r"(\d+) ranks:\s+(\d+) steps, ([\d.]+) MB", costs):
        assert int(steps) == 2 * (int(ranks) - 1)
        assert abs(float(sent) - n * 2 * (int(ranks) - 1) / int(ranks)) <= 0.011
        assert float(sent) < 2 * n


def test_16_the_replay_is_the_same_bits_and_its_time_is_read_right(lessons):
    l16 = lessons("16")
    parts = l16.output("09e3f7b3")
    eager, by_hand = number(r"eager MiniTorch step:\s+(\d+)", parts), number(r"NumPy by hand:\s+(\d+)", parts)
    assert number(r"framework Python:\s+(\d+)", parts) == eager - by_hand
    assert abs(number(r"= (\d+)% of the eager step", parts) - 100 * (eager - by_hand) / eager) <= 1
    # the replay keeps each op's Python: never below the hand-written NumPy step
    assert number(r"replay (\d+) µs", l16.output("3eb95cfc")) > by_hand
    compiled = l16.output("739020cc")
    assert says_true("every parameter equal to the bit", compiled) and says_true("the same loss", compiled)
    assert says_true("test accuracy at least 95%", compiled)
    # "the ratio printed above is that one run, and says whether it came out faster"
    timing = l16.output("60f15ae5")
    ratio = number(r"median of the epochs: ([\d.]+)", timing)
    assert ("(faster in this run)" in timing) == (ratio < 1)
    band = re.search(r"between ([\d.]+) and ([\d.]+) for its epochs", l16.text("784f6a02"))
    assert band and float(band.group(1)) < float(band.group(2)) < 1


def test_17_second_derivatives_agree_and_the_costs_read_right(lessons):
    l17 = lessons("17")
    # tanh'' by hand (the learner's double backward) and recorded by autograd: the same numbers
    compared = l17.output("6d72f56c")
    by_hand = re.search(r"by hand:\s*\[([^\]]+)\]", compared).group(1).split()
    recorded = re.search(r"recorded by autograd:\s*\[([^\]]+)\]", compared).group(1).split()
    assert by_hand == recorded and says_true("gradgradcheck(parts.Tanh)", compared)
    # "30 products against the exact eigenvalues": the power iteration lands on the largest
    assert "30 products" in l17.text("432ebcd0")
    power = l17.output("f9893105")
    assert number(r"power iteration, 30 Hessian-vector products: ([-\d.]+)", power) == number(
        r"to ([-\d.]+)", power)
    assert "Some eigenvalues are negative" in l17.text("18c6e498") and number(r"from ([-\d.]+)", power) < 0
    # "the mean slope settles near 1", "nothing stops the critic"
    trained = l17.output("3a9de538")
    assert says_true("within 0.2 of 1", trained) and says_true("above 10", trained)
    # the digits MLP's size, its Hessian's, and "a few times the time and memory of a gradient"
    cost = l17.text("6f393357")
    n = number(r"\$n\$ = ([\d,]+) weights", cost)
    assert number(r"weights: (\d+)", l17.output("8a7d9e30")) == n
    assert round(n * n / 1e6) == number(r"\\approx (\d+)\$\s*million", cost)
    memory = l17.output("c216109c")
    assert number(r"\(([\d]+) MB in float32\)", cost) == number(r"in float32: (\d+) MB", memory) == round(
        n * n * 4 / 1e6)
    assert 1 < number(r"ratio ([\d.]+)", l17.output("485db71c")) < 10 and 1 < number(r"ratio ([\d.]+)", memory) < 10
    # "about three times ... 2.4 to 4" for PyTorch: what docs/benchmarks.md recorded
    assert "about three times" in l17.text("d97be088") and "2.4 to 4" in l17.text("d97be088")
    docs = (Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md").read_text()
    section = docs[docs.index("## Hessian-vector products"):]
    section = section[: section.index("\n## ")]
    # the table's "PyTorch hvp / grad" column: a range per row of runs
    ranges = [(float(low), float(high)) for low, high in re.findall(
        r"^\| [^|]+ \| [\d.]+-[\d.]+ \| ([\d.]+)-([\d.]+) \|", section, re.M)]
    assert len(ranges) >= 3 and all(2.4 <= low <= high <= 4 for low, high in ranges), ranges


def test_18_the_strategies_keep_their_promises(lessons):
    l18 = lessons("18")
    # "For this small model and batch the activations dominate"
    assert "the activations dominate" in l18.text("a1c0e007")
    counted = l18.output("a1c0e004")
    parts = [number(rf"{name}:\s+([\d.]+) MB", counted) for name in ("parameters", "gradients", "Adam state")]
    assert number(r"activations:\s+([\d.]+) MB", counted) > sum(parts)
    # "Two all-reduces of 8 x 16 numbers, however many hidden units ... and however many ranks share it"
    assert r"Two all-reduces of $8 \times 16$ numbers" in l18.text("a1c0e017")
    tensor_parallel = l18.output("a1c0e016")
    for ranks in (2, 4):
        assert says_true(f"{ranks} ranks: the parallel MLP equals the one-process MLP", tensor_parallel)
    assert tensor_parallel.count("1 all-reduce of 1,024 bytes (= 8 x 16 float64: True)") == 4  # 2 phases x 2 runs
    # "1F1B's stage 0 keeps 4 microbatches' activations where GPipe's keeps 8" (4 stages, 8 microbatches)
    assert "1F1B's stage 0 keeps 4 microbatches' activations where GPipe's keeps 8" in l18.text("a1c0e025")
    pipeline = l18.output("a1c0e026")
    assert "ScheduleGPipe: gradients equal the one-process model's: True; microbatches kept per stage: [8, 8, 8, 8]" \
        in pipeline
    assert "Schedule1F1B: gradients equal the one-process model's: True; microbatches kept per stage: [4, 3, 2, 1]" \
        in pipeline
    # "The measured bubble sits a little above the formula"
    assert "The measured bubble sits a little above the formula" in l18.text("a1c0e028")
    for measured, predicted in re.findall(r"bubble ([\d.]+) measured, \(p-1\)/\(m\+p-1\) = ([\d.]+)",
                                          l18.output("a1c0e027")):
        assert float(predicted) - 0.01 <= float(measured) <= float(predicted) + 0.1
    # "Each rank keeps close to 1/N of Adam's state, and the parameters are those of plain Adam to the last bit"
    assert "Each rank keeps close to $1/N$ of Adam's state" in l18.text("a1c0e036")
    zero = l18.output("a1c0e035")
    for ranks in (2, 4):
        assert says_true(f"{ranks} ranks: the same bits on every rank", zero)
        assert f"{ranks} ranks: the same bits on every rank: True; equal to plain Adam's parameters: True" in zero
    for share, ranks in re.findall(r"= ([\d.]+) of it \(1/(\d) =", zero):
        assert abs(float(share) * int(ranks) - 1) <= 0.05
