"""Lesson 12's checks: the RNN cell, BPTT, the LSTM cell and its cell-state backward, with hints naming the mistake.

    check_function("rnn cell forward", keep_inputs(rnn_cell), keep_inputs(reference), cases=..., compare=rnn_cell_hint)
    check_function("rnn BPTT", keep_inputs(rnn_bptt), keep_inputs(reference), cases=..., compare=bptt_hint)
    check_function("lstm cell forward", keep_inputs(lstm_cell), keep_inputs(reference), cases=..., compare=lstm_cell_hint)
    check_backward(CellUpdate, ..., mistakes=cell_update_mistakes)

Each hint computes, from the case's own inputs, the wrong versions learners write (a
missing transpose or recurrent term, the gates in another order, BPTT without the path
through h, the cell-state gradient without f...) and says which one the answer equals.
"""

from collections.abc import Iterator
from typing import Any

import numpy as np

from widgets.check.function_checker import same
from widgets.check.outcome import Outcome
from widgets.i18n import _

Array = np.ndarray


def _sigmoid(z: Array) -> Array:
    return 1 / (1 + np.exp(-z))


def _matches(got: Any, wrong: Any) -> bool:
    """True when ``got`` equals the wrong version (arrays, or tuples of arrays, of the same shapes)."""
    if isinstance(wrong, tuple):
        return (isinstance(got, (tuple, list)) and len(got) == len(wrong)
                and all(_matches(g, w) for g, w in zip(got, wrong)))
    return (isinstance(got, np.ndarray) and got.shape == wrong.shape
            and bool(np.allclose(got, wrong, atol=1e-6, rtol=1e-5)))


def _first_match(got: Any, variants: Iterator[tuple[Any, str]]) -> str | None:
    for wrong, text in variants:
        try:
            if _matches(got, wrong):
                return text
        except (ValueError, FloatingPointError):  # a variant that does not fit this case's shapes
            continue
    return None


def _judge(got: Outcome, expected: Outcome, variants: Iterator[tuple[Any, str]]) -> tuple[bool, str]:
    ok, hint = same(got.value, expected.value)
    if ok:
        return ok, hint
    return False, _first_match(got.value, variants) or hint


# ---------------------------------------------------------------------- exercise 1: the RNN cell
def _rnn_cell_variants(x: Array, h: Array, W_ih: Array, W_hh: Array, b: Array) -> Iterator[tuple[Array, str]]:
    yield np.tanh(x @ W_ih.T + b), _("the recurrent term is missing: add h @ W_hh.T (the previous state)")
    yield np.tanh(x @ W_ih.T + h @ W_hh.T), _("the bias b is missing")
    yield np.tanh(x @ W_ih.T + h @ W_hh.T) + b, _("the bias is added after the tanh: it belongs inside, "
                                                  "tanh(x @ W_ih.T + h @ W_hh.T + b)")
    yield np.tanh(x @ W_ih.T + h @ W_hh + b), _("W_hh is not transposed: h @ W_hh.T (W_hh is (H, H), rows are "
                                                "outputs)")
    yield x @ W_ih.T + h @ W_hh.T + b, _("no tanh: h_new = tanh(x @ W_ih.T + h @ W_hh.T + b)")
    yield _sigmoid(x @ W_ih.T + h @ W_hh.T + b), _("sigmoid instead of tanh: the RNN cell uses tanh")


def rnn_cell_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for the RNN cell: a missing term, transpose or nonlinearity."""
    return _judge(got, expected, _rnn_cell_variants(*expected.args))


# ---------------------------------------------------------------------- exercise 2: BPTT
def _bptt(xs: Array, h0: Array, W_ih: Array, W_hh: Array, b: Array, grad_hs: Array, *, recurrence: bool = True,
          state_shift: int = 0, tanh_grad: bool = True, transpose: bool = False, tanh_step: int = 1,
          forward_in_time: bool = False, accumulate: bool = True) -> tuple[Array, ...]:
    """(dW_ih, dW_hh, db, dh0) of an RNN over ``xs``, or of a wrong BPTT."""
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ W_ih.T + hs[-1] @ W_hh.T + b))
    dW_ih, dW_hh, db = np.zeros_like(W_ih), np.zeros_like(W_hh), np.zeros_like(b)
    dh_next = np.zeros_like(h0)
    for t in (range(len(xs)) if forward_in_time else reversed(range(len(xs)))):
        upstream = grad_hs[t] + dh_next if recurrence else grad_hs[t]
        da = upstream * (1 - hs[t + tanh_step] ** 2) if tanh_grad else upstream
        if accumulate:
            dW_ih, dW_hh, db = dW_ih + da.T @ xs[t], dW_hh + da.T @ hs[t + state_shift], db + da.sum(axis=0)
        else:  # `=` for `+=`: only the last step walked keeps its contribution
            dW_ih, dW_hh, db = da.T @ xs[t], da.T @ hs[t + state_shift], da.sum(axis=0)
        dh_next = da @ (W_hh.T if transpose else W_hh)
    return dW_ih, dW_hh, db, dh_next


def bptt_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for BPTT: the path through h missing, the wrong state, no tanh', a wrong transpose."""
    args = expected.args
    variants = (
        (_bptt(*args, recurrence=False), _("the gradient flowing back through h is missing: at step t add dh_next "
                                           "(the gradient from step t + 1) to grad_hs[t] before the tanh derivative")),
        (_bptt(*args, state_shift=1), _("dW_hh uses the new state: h_t = tanh(... + h_{{t-1}} @ W_hh.T), so dW_hh += "
                                        "da.T @ hs[t] (the state before the step)")),
        (_bptt(*args, tanh_grad=False), _("the tanh derivative is missing: da = (grad_hs[t] + dh_next) * "
                                          "(1 - h_t**2)")),
        (_bptt(*args, transpose=True), _("dh_next = da @ W_hh (not W_hh.T): forward used h @ W_hh.T")),
        (_bptt(*args, tanh_step=0), _("the tanh derivative uses the state before the step: h_t = tanh(a_t), so "
                                      "the derivative is 1 - h_t**2 with h_t = hs[t + 1], the step's own output")),
        (_bptt(*args, forward_in_time=True), _("the loop walks forward in time: the gradient flows from the last "
                                               "step back to the first, for t in reversed(range(len(xs)))")),
        (_bptt(*args, accumulate=False), _("dW_ih, dW_hh and db hold only one step's contribution: every step "
                                           "uses the same weights, so add each step's gradient (+=, not =)")),
    )
    value = got.value
    ok, hint = same(value, expected.value)
    if ok or not (isinstance(value, (tuple, list)) and len(value) == 4
                  and all(isinstance(v, np.ndarray) for v in value)):
        return ok, hint
    text = _first_match(tuple(value), iter(variants))
    if text:
        return False, text
    wrong = [n for n, g, e in zip(("dW_ih", "dW_hh", "db", "dh0"), value, expected.value) if not same(g, e)[0]]
    one_step = _bptt(*args, accumulate=False)
    overwritten = [n for n, g, w in zip(("dW_ih", "dW_hh", "db"), value, one_step) if n in wrong and _matches(g, w)]
    if overwritten:
        return False, _("{names} hold(s) only one step's contribution: every step uses the same weights, so add "
                        "each step's gradient (+=, not =)", names=", ".join(overwritten))
    return False, _("{names} wrong: {hint}", names=", ".join(wrong), hint=hint)


# ---------------------------------------------------------------------- exercise 3: the LSTM cell
_ORDER = "ifgo"


def _lstm(x: Array, h: Array, c: Array, W_ih: Array, W_hh: Array, b: Array, *, order: str = _ORDER,
          swap_fi: bool = False, tanh_c: bool = True, sigmoid_g: bool = False,
          input_gate: bool = True) -> tuple[Array, Array]:
    H = h.shape[1]
    z = x @ W_ih.T + h @ W_hh.T + b
    block = {name: z[:, k * H:(k + 1) * H] for k, name in enumerate(order)}
    i, f, o = _sigmoid(block["i"]), _sigmoid(block["f"]), _sigmoid(block["o"])
    g = _sigmoid(block["g"]) if sigmoid_g else np.tanh(block["g"])
    c_new = i * c + f * g if swap_fi else f * c + (i * g if input_gate else g)
    return (o * np.tanh(c_new) if tanh_c else o * c_new), c_new


def lstm_cell_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for the LSTM cell: the gate order, f and i swapped, tanh of c forgotten."""
    args = expected.args

    def variants() -> Iterator[tuple[Any, str]]:
        yield _lstm(*args, swap_fi=True), _("f and i are swapped: c_new = f * c + i * g (f forgets the old c), and "
                                            "z holds i, f, g, o in that order")
        for order in ("ifog", "fiog", "iofg", "gifo"):
            yield _lstm(*args, order=order), _("the gates are read in the order {order}: PyTorch's "
                                               "order is i, f, g, o (input, forget, cell candidate, output)",
                                               order=", ".join(order))
        yield _lstm(*args, tanh_c=False), _("h_new = o * tanh(c_new): the tanh of the cell state is missing")
        yield _lstm(*args, sigmoid_g=True), _("g (the cell candidate) uses tanh, not sigmoid")
        yield _lstm(*args, input_gate=False), _("the input gate is missing: c_new = f * c + i * g (i decides how "
                                                "much of the candidate g enters)")
        yield _lstm(*args)[::-1], _("returned (c_new, h_new): the order is (h_new, c_new), as PyTorch's LSTMCell")
    if isinstance(got.value, list):
        return False, _("returned a list: return a tuple (h_new, c_new)")
    return _judge(got, expected, variants())


# ---------------------------------------------------------------------- exercise 4: the cell-state backward
def _cell_update_grads(z: Array, c: Array, grad_output: Array, f_path: bool = True, sigmoid_grad: str = "if",
                       i_in_g: bool = True, order: str = "ifg", tanh_grad_squared: bool = True) -> tuple[Array, Array]:
    H = c.shape[1]
    i, f, g = _sigmoid(z[:, :H]), _sigmoid(z[:, H:2 * H]), np.tanh(z[:, 2 * H:3 * H])
    blocks = {"i": grad_output * g * (i * (1 - i) if "i" in sigmoid_grad else 1),
              "f": grad_output * c * (f * (1 - f) if "f" in sigmoid_grad else 1),
              "g": grad_output * (i if i_in_g else 1) * (1 - g * g if tanh_grad_squared else 1 - g)}
    dz = np.zeros((c.shape[0], 4 * H))
    for k, name in enumerate(order):
        dz[:, k * H:(k + 1) * H] = blocks[name]
    return dz, (grad_output * f if f_path else grad_output)


def cell_update_mistakes(k: int, got: Array, inputs: list[Any], grad_output: Array) -> str | None:
    """``mistakes`` for the cell-state backward (inputs z, c): which wrong gradient ``got`` is."""
    z, c = inputs
    variants = ((dict(f_path=False), _("the gradient reaching the old c is grad_output * f: c_new = f * c + i * g")),
                (dict(sigmoid_grad=""), _("the sigmoid derivative is missing: d sigmoid(z) = s * (1 - s)")),
                (dict(sigmoid_grad="f"), _("i's gradient lacks the sigmoid derivative i * (1 - i)")),
                (dict(sigmoid_grad="i"), _("f's gradient lacks the sigmoid derivative f * (1 - f)")),
                (dict(i_in_g=False), _("g's gradient lacks the factor i: d c_new / d g = i")),
                (dict(order="fig"), _("the gradients of i and f are in each other's columns: z holds i, f, g, o")),
                (dict(tanh_grad_squared=False), _("the tanh derivative is 1 - g**2, not 1 - g: d tanh(a) = 1 - "
                                                  "tanh(a)**2")))
    for options, text in variants:
        wrong = _cell_update_grads(z, c, grad_output, **options)[k]
        if wrong.shape == got.shape and np.allclose(got, wrong, atol=1e-6, rtol=1e-5):
            return text
    return None
