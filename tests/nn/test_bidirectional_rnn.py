"""Bidirectional RNN/LSTM/GRU and LSTM(proj_size=) against PyTorch 2.13 (issue 28, item 6).

PyTorch's state dict is loaded into MiniTorch's module unchanged (``weight_ih_l0_reverse``,
``weight_hr_l0``, ...); then outputs, h_n, c_n and every gradient must agree, in float64.
The new arithmetic (the projection, the reversed direction) is also gradchecked.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd.gradcheck import gradcheck
from minitorch.functions.recurrent import lstm_layer

torch = pytest.importorskip("torch")

CONFIGS = [
    # (mode, options)
    ("RNN", dict(bidirectional=True)),
    ("RNN", dict(bidirectional=True, num_layers=3, nonlinearity="relu")),
    ("GRU", dict(bidirectional=True, num_layers=2)),
    ("GRU", dict(bidirectional=True, bias=False)),
    ("LSTM", dict(bidirectional=True, num_layers=2)),
    ("LSTM", dict(proj_size=2)),
    ("LSTM", dict(proj_size=3, num_layers=2)),
    ("LSTM", dict(proj_size=2, num_layers=3, bidirectional=True)),
    ("LSTM", dict(proj_size=1, bidirectional=True, bias=False)),
]
I, H, T, N = 3, 5, 4, 2


def _pair(mode, options, batch_first):
    """A torch module and a MiniTorch one holding the very same float64 weights."""
    torch.manual_seed(0)
    theirs = getattr(torch.nn, mode)(I, H, batch_first=batch_first, **options).double()
    ours = getattr(minitorch.nn, mode)(I, H, batch_first=batch_first, **options).double()
    state = theirs.state_dict()
    assert list(ours.state_dict()) == list(state)  # the same names, in the same order
    ours.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in state.items()})
    return theirs, ours


def _states(mode, options, rng, batched):
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    batch = (N,) if batched else ()
    h0 = rng.standard_normal((layers, *batch, options.get("proj_size") or H))
    if mode != "LSTM":
        return [h0]
    return [h0, rng.standard_normal((layers, *batch, H))]


def _run(lib, module, x, states):
    leaves = [lib.tensor(a, requires_grad=True) for a in (x, *states)]
    hx = leaves[1] if len(leaves) == 2 else (leaves[1], leaves[2])
    output, h = module(leaves[0], hx)
    outs = [output, *(h if isinstance(h, tuple) else (h,))]
    return leaves, outs


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("config", range(len(CONFIGS)), ids=lambda i: f"{CONFIGS[i][0]}-{CONFIGS[i][1]}")
def test_forward_states_and_gradients_match_pytorch(rng, config, batch_first):
    mode, options = CONFIGS[config]
    theirs, ours = _pair(mode, options, batch_first)
    x = rng.standard_normal((N, T, I) if batch_first else (T, N, I))
    states = _states(mode, options, rng, batched=True)
    t_leaves, t_outs = _run(torch, theirs, x, states)
    m_leaves, m_outs = _run(minitorch, ours, x, states)
    upstream = [rng.standard_normal(tuple(o.shape)) for o in t_outs]
    for t_out, m_out in zip(t_outs, m_outs):
        assert tuple(m_out.shape) == tuple(t_out.shape)
        np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    torch.autograd.backward(t_outs, [torch.tensor(u) for u in upstream])
    minitorch.autograd.backward(m_outs, [minitorch.tensor(u) for u in upstream])
    for t_leaf, m_leaf in zip(t_leaves, m_leaves):  # the input, h0 (and c0)
        np.testing.assert_allclose(m_leaf.grad.numpy(), t_leaf.grad.numpy(), rtol=1e-9, atol=1e-12)
    t_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), t_params[name].grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("config", [0, 4, 7])
def test_unbatched_input_matches_pytorch(rng, config):
    mode, options = CONFIGS[config]
    theirs, ours = _pair(mode, options, False)
    x = rng.standard_normal((T, I))
    states = _states(mode, options, rng, batched=False)
    for t_out, m_out in zip(_run(torch, theirs, x, states)[1], _run(minitorch, ours, x, states)[1]):
        assert tuple(m_out.shape) == tuple(t_out.shape)
        np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("config", [1, 2, 7])
def test_bidirectional_module_gradchecks_in_float64(rng, config):
    mode, options = CONFIGS[config]
    _, ours = _pair(mode, {**options, "num_layers": 2}, False)
    x = minitorch.tensor(rng.standard_normal((3, 2, I)), requires_grad=True)
    states = [minitorch.tensor(s, requires_grad=True) for s in _states(mode, {**options, "num_layers": 2}, rng, True)]

    def run(x, *states):
        output, h = ours(x, states[0] if len(states) == 1 else tuple(states))
        return output.sum() + (h[0].sum() + h[1].sum() if isinstance(h, tuple) else h.sum())

    assert gradcheck(run, (x, *states))


def test_lstm_layer_with_a_projection_gradchecks_every_input_in_float64(rng):
    P = 2
    def leaf(*shape):
        return minitorch.tensor(rng.standard_normal(shape), requires_grad=True)

    inputs = (leaf(3, 2, I), leaf(2, P), leaf(2, H), leaf(4 * H, I), leaf(4 * H, P), leaf(4 * H), leaf(4 * H),
              leaf(P, H))

    def run(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr):
        hs, h_T, c_T = lstm_layer(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
        return hs.sum() + (h_T * 2).sum() + (c_T * 3).sum()

    assert gradcheck(run, inputs)


def test_parameter_shapes_repr_and_all_weights_as_pytorch():
    for mode, options in CONFIGS:
        theirs, ours = _pair(mode, options, False)
        assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == {
            k: tuple(v.shape) for k, v in theirs.state_dict().items()
        }
        assert repr(ours) == repr(theirs)
        assert [[tuple(p.shape) for p in group] for group in ours.all_weights] == [
            [tuple(p.shape) for p in group] for group in theirs.all_weights
        ]


@pytest.mark.parametrize(
    "make, fragments",
    [
        (lambda lib: lib.nn.GRU(3, 5, proj_size=2), ["proj_size", "only supported for LSTM"]),
        (lambda lib: lib.nn.RNN(3, 5, proj_size=2), ["proj_size", "only supported for LSTM"]),
        (lambda lib: lib.nn.LSTM(3, 5, proj_size=5), ["proj_size=5", "smaller than hidden_size", "hidden_size=5"]),
        (lambda lib: lib.nn.LSTM(3, 5, proj_size=-1), ["proj_size", "positive integer or zero", "-1"]),
    ],
)
def test_proj_size_errors_as_pytorch(make, fragments):
    with pytest.raises(ValueError):
        make(torch)
    with pytest.raises(ValueError) as info:
        make(minitorch)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_an_initial_state_of_the_wrong_shape_names_both_directions():
    lstm = minitorch.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    x = minitorch.zeros(4, 2, 3)
    with pytest.raises(RuntimeError):
        torch.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)(
            torch.zeros(4, 2, 3), (torch.zeros(2, 2, 2), torch.zeros(4, 2, 5))
        )
    with pytest.raises(RuntimeError, match=r"\(4, 2, 2\) \(num_layers \* 2 \(bidirectional\), N, proj_size\)"):
        lstm(x, (minitorch.zeros(2, 2, 2), minitorch.zeros(4, 2, 5)))
