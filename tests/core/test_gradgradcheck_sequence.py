"""Second derivatives of the sequence ops: the recurrent layers (recurrent.py: LSTMLayer with
and without a projection, GRULayer, RNNLayer with tanh and relu) and erf / GELU (special.py),
against finite differences (gradgradcheck) and PyTorch's (``second_order.py``); third
derivatives against PyTorch's on one case of each op.

Each recurrent op's backward (BPTT) runs on graph values as written: the per-step gradients
are collected in lists and stacked, never written into an array. Whichever fast kernel ran the
forward (the feature-major LSTM, the GRU that keeps its gates, SciPy's erf, the float32 GELU),
graph mode runs the op's own backward on its node: a kernel leaves ``ctx`` as the op does,
which the tests with the kernels on and off hold. Through ``nn.LSTM`` / ``nn.GRU`` / ``nn.RNN``
(two layers, both directions) the finite differences check a few parameters (each weight's
element costs a backward per first derivative) and PyTorch every one.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from second_order import TOLERANCE, check, compare_with_torch, derivatives, leaves  # noqa: E402  (PyTorch first)

import minitorch  # noqa: E402
from minitorch.autograd import gradgradcheck  # noqa: E402
from minitorch.functions import recurrent as R  # noqa: E402
from minitorch.kernels import use_fast_kernels  # noqa: E402

T, N, I = 3, 2, 2  # steps, batch, input features: small, every element is a finite difference


def small(rng, *shape):
    """Weights and states of a size that keeps the gates away from saturation."""
    return 0.6 * rng.standard_normal(shape)


# ---------------------------------------------------------------------- the layers, both libraries
def torch_layer(mode, I, H, bias, proj_size=0, **options):
    """PyTorch's module for one layer (weights replaced by ``functional_call``)."""
    if mode == "LSTM":
        return torch.nn.LSTM(I, H, bias=bias, proj_size=proj_size, **options)
    if mode == "GRU":
        return torch.nn.GRU(I, H, bias=bias, **options)
    return torch.nn.RNN(I, H, nonlinearity=mode, bias=bias, **options)


def weight_names(bias, proj, suffix="_l0"):
    names = [f"weight_ih{suffix}", f"weight_hh{suffix}"]
    names += [f"bias_ih{suffix}", f"bias_hh{suffix}"] if bias else []
    return names + ([f"weight_hr{suffix}"] if proj else [])


def lstm(bias, proj):
    """fn(lib, x, h0, c0, weights...) -> (all h, h_T, c_T): R.lstm_layer, or PyTorch's nn.LSTM."""

    def fn(lib, x, h0, c0, *weights):
        named = dict(zip(weight_names(bias, proj), weights))
        if lib is minitorch:
            get = named.get
            return R.lstm_layer(x, h0, c0, get("weight_ih_l0"), get("weight_hh_l0"), get("bias_ih_l0"),
                                get("bias_hh_l0"), get("weight_hr_l0"))  # fmt: skip
        H = c0.shape[1]
        module = torch_layer("LSTM", x.shape[2], H, bias, h0.shape[1] if proj else 0)
        out, (h, c) = torch.func.functional_call(module, named, (x, (h0[None], c0[None])))
        return out, h[0], c[0]

    return fn


def one_state(mode, bias):
    """fn(lib, x, h0, weights...) -> (all h, h_T): R.gru_layer / R.rnn_layer, or PyTorch's module."""

    def fn(lib, x, h0, *weights):
        named = dict(zip(weight_names(bias, False), weights))
        if lib is minitorch:
            w_ih, w_hh = named["weight_ih_l0"], named["weight_hh_l0"]
            b_ih, b_hh = named.get("bias_ih_l0"), named.get("bias_hh_l0")
            if mode == "GRU":
                return R.gru_layer(x, h0, w_ih, w_hh, b_ih, b_hh)
            return R.rnn_layer(x, h0, w_ih, w_hh, b_ih, b_hh, mode)
        module = torch_layer(mode, x.shape[2], h0.shape[1], bias)
        out, h = torch.func.functional_call(module, named, (x, h0[None]))
        return out, h[0]

    return fn


def lstm_arrays(rng, H, bias, P=None, steps=T, batch=N):
    P = P or H
    arrays = [small(rng, steps, batch, I), small(rng, batch, P), small(rng, batch, H)]
    arrays += [small(rng, 4 * H, I), small(rng, 4 * H, P)]
    arrays += [small(rng, 4 * H), small(rng, 4 * H)] if bias else []
    return arrays + ([small(rng, P, H)] if P != H else [])


def one_state_arrays(rng, gates, H, bias, steps=T, batch=N):
    arrays = [small(rng, steps, batch, I), small(rng, batch, H), small(rng, gates * H, I), small(rng, gates * H, H)]
    return arrays + ([small(rng, gates * H), small(rng, gates * H)] if bias else [])


def check_layer(rng, fn, make, finite_differences_batch=N):
    """gradgradcheck of a layer at ``make(rng, steps, batch)``'s smallest sizes (each element a
    finite difference), then PyTorch's second derivatives at more steps and a larger batch."""
    check(fn, *make(rng, T, finite_differences_batch), torch_check=False)
    compare_with_torch(fn, *make(rng, 5, 3))


# ---------------------------------------------------------------------- each op
def test_lstm_layer_with_biases(rng):
    # one sample for the finite differences (the LSTM's graph is the largest): three steps, so
    # that the middle one both receives and sends gradients; PyTorch checks a batch of three
    check_layer(rng, lstm(True, False), lambda rng, T, N: lstm_arrays(rng, 2, True, steps=T, batch=N), 1)


def test_lstm_layer_with_a_projection_without_biases(rng):
    check_layer(rng, lstm(False, True), lambda rng, T, N: lstm_arrays(rng, 3, False, P=2, steps=T, batch=N), 1)


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_gru_layer(rng, bias):
    check_layer(rng, one_state("GRU", bias), lambda rng, T, N: one_state_arrays(rng, 3, 2, bias, T, N))


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_rnn_layer(rng, nonlinearity, bias):
    # relu: random pre-activations sit far from 0 next to eps = 1e-6 (the finite differences' step)
    check_layer(rng, one_state(nonlinearity, bias), lambda rng, T, N: one_state_arrays(rng, 1, 3, bias, T, N))


@pytest.mark.parametrize(
    "name, fn, arrays",
    [
        ("lstm", lstm(True, True), lambda rng: lstm_arrays(rng, 2, True, P=1)),
        ("gru", one_state("GRU", True), lambda rng: one_state_arrays(rng, 3, 2, True)),
        ("rnn", one_state("tanh", False), lambda rng: one_state_arrays(rng, 1, 2, False)),
    ],
    ids=["lstm", "gru", "rnn"],
)
def test_recurrent_third_derivatives_match_torch(rng, name, fn, arrays):
    compare_with_torch(fn, *arrays(rng), order=3)


# ---------------------------------------------------------------------- through nn, two layers, both directions
MODULE_CASES = {
    "lstm": ("LSTM", {"bias": True}),
    "lstm-proj-no-bias": ("LSTM", {"bias": False, "proj_size": 1}),
    "gru": ("GRU", {"bias": True}),
    "rnn-relu": ("relu", {"bias": True}),
}


def module_fn(mode, options, H=2):
    """fn(lib, x, weights...) -> (output, h_n[, c_n]) of a two-layer bidirectional module,
    run with the given weights (PyTorch: ``functional_call``; MiniTorch: the module's
    parameters swapped for them while it runs)."""
    kwargs = {"num_layers": 2, "bidirectional": True, **options}
    mine = (
        minitorch.nn.LSTM(I, H, **kwargs)
        if mode == "LSTM"
        else minitorch.nn.GRU(I, H, **kwargs)
        if mode == "GRU"
        else minitorch.nn.RNN(I, H, nonlinearity=mode, **kwargs)
    )
    theirs = torch_layer(mode, I, H, **kwargs)
    names = [name for name, _ in theirs.named_parameters()]
    assert names == [name for name, _ in mine.named_parameters()]

    def fn(lib, x, *weights):
        if lib is torch:
            out, state = torch.func.functional_call(theirs, dict(zip(names, weights)), (x,))
        else:
            saved = dict(mine._parameters)
            mine._parameters.update(zip(names, weights))  # the layers read their weights from here
            try:
                out, state = mine(x)
            finally:
                mine._parameters.update(saved)
        return (out, *state) if mode == "LSTM" else (out, state)

    return fn, [tuple(p.shape) for _, p in theirs.named_parameters()], names


@pytest.mark.parametrize("case", MODULE_CASES)
def test_through_nn_two_layers_bidirectional(rng, case):
    mode, options = MODULE_CASES[case]
    fn, shapes, names = module_fn(mode, options)
    arrays = [small(rng, 2, 1, I)] + [small(rng, *shape) for shape in shapes]
    compare_with_torch(fn, *arrays)
    # Finite differences on the input (its second derivatives run back through both layers and
    # directions) and the second layer's reverse recurrent weight: each element of every weight
    # would take minutes.
    checked = {0, 1 + names.index("weight_hh_l1_reverse")}
    inputs = leaves(minitorch, arrays)
    for k, t in enumerate(inputs):
        t.requires_grad_(k in checked)
    assert gradgradcheck(lambda *xs: fn(minitorch, *xs), inputs)


@pytest.mark.parametrize("steps", [1, 3])
@pytest.mark.parametrize("mode", ["LSTM", "GRU", "tanh"])
def test_a_gradient_penalty_through_a_recurrent_model(rng, mode, steps):
    # WGAN-GP's term: the squared distance of |d critic / d input| from 1, differentiated with
    # respect to the input and every weight (the incoming gradient of the layer's backward
    # carries no gradient itself here, unlike in gradgradcheck).
    fn, shapes, _ = module_fn(mode, {"bias": True, "num_layers": 1, "bidirectional": False}, H=3)
    arrays = [small(rng, steps, N, I)] + [small(rng, *shape) for shape in shapes]
    results = []
    for lib in (minitorch, torch):
        inputs = leaves(lib, arrays)
        out = fn(lib, *inputs)[0]
        (g,) = lib.autograd.grad((out[-1] * out[-1]).sum(), [inputs[0]], create_graph=True)
        penalty = ((g * g).sum() - 1) ** 2
        results.append([d.detach().numpy() for d in lib.autograd.grad(penalty, inputs)])
    for slot, (ours, theirs) in enumerate(zip(*results)):
        np.testing.assert_allclose(ours, theirs, err_msg=f"slot {slot}", **TOLERANCE)


# ---------------------------------------------------------------------- the fast kernels keep the contract
def gelu(lib, x):
    return lib.nn.functional.gelu(x)


def tanh_gelu(lib, x):
    return lib.nn.functional.gelu(x, approximate="tanh")


def erf(lib, x):
    return lib.erf(x)


def matrix(rng):
    return [rng.standard_normal((3, 4))]


KERNEL_CASES = {
    "lstm": (lstm(True, False), lambda rng: lstm_arrays(rng, 2, True)),
    "lstm-proj": (lstm(True, True), lambda rng: lstm_arrays(rng, 3, True, P=2)),
    "gru": (one_state("GRU", True), lambda rng: one_state_arrays(rng, 3, 2, True)),
    "gelu": (gelu, matrix),
    "gelu-tanh": (tanh_gelu, matrix),
    "erf": (erf, matrix),
}


def derivatives_in(dtype, fn, arrays, kernels):
    """Second and third derivatives of ``fn`` in ``dtype`` with the fast kernels on or off, float64 arrays."""

    def in_dtype(lib, *xs):
        outputs = fn(lib, *(x.to(dtype) for x in xs))
        return tuple(o.double() for o in (outputs if isinstance(outputs, tuple) else (outputs,)))

    with use_fast_kernels(kernels):
        return derivatives(minitorch, in_dtype, arrays, order=3)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", KERNEL_CASES)
def test_graph_mode_runs_the_ops_backward_on_a_kernels_node(rng, case, dtype):
    fn, arrays = KERNEL_CASES[case]
    arrays = arrays(rng)
    dtype = getattr(minitorch, dtype)
    fast = derivatives_in(dtype, fn, arrays, kernels=True)
    reference = derivatives_in(dtype, fn, arrays, kernels=False)
    tolerance = TOLERANCE if dtype == minitorch.float64 else {"rtol": 2e-4, "atol": 2e-5}
    for order, (ours, theirs) in enumerate(zip(fast, reference), start=2):
        for slot, (a, b) in enumerate(zip(ours, theirs)):
            np.testing.assert_allclose(a, b, err_msg=f"order {order}, slot {slot}", **tolerance)


# ---------------------------------------------------------------------- erf and GELU
@pytest.mark.parametrize("op", [erf, gelu, tanh_gelu])
def test_erf_and_gelu_broadcast(rng, op):
    x, y = rng.standard_normal((3, 1)), 1.5 * rng.standard_normal((1, 4))
    check(lambda lib, a, b: op(lib, a * b + b), x, y, order=3)


def test_gelu_and_erf_second_derivatives_are_exact_in_the_tails():
    # erf'' = -4x/sqrt(pi) exp(-x^2), gelu'' = phi(x) (2 - x^2): the Erf op is recorded for Phi,
    # so these hold to rounding also where Cody's approximations switch ranges (0.5, 4) and far out.
    values = np.array([-7.0, -4.5, -4.0, -2.0, -0.5, -0.3, 0.0, 0.2, 0.5, 1.0, 3.9, 4.1, 6.0])
    (x,) = leaves(minitorch, [values])
    phi = np.exp(-values * values / 2) / np.sqrt(2 * np.pi)
    for op, expected in (
        (minitorch.erf, -4 * values / np.sqrt(np.pi) * np.exp(-values * values)),
        (minitorch.nn.functional.gelu, phi * (2 - values * values)),
    ):
        (g,) = minitorch.autograd.grad(op(x).sum(), [x], create_graph=True)
        (h,) = minitorch.autograd.grad(g.sum(), [x])
        np.testing.assert_allclose(h.numpy(), expected, rtol=1e-12, atol=1e-30)
