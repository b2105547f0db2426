"""Sequence modules against PyTorch: RNN/LSTM/GRU (+ Cells), Embedding, LayerNorm, GELU,
MultiheadAttention and gradient clipping.

Each case builds the PyTorch module, loads its ``state_dict`` into MiniTorch's (as is,
through ``.numpy()``), runs both on the same input and compares outputs, final states and
the gradients of every parameter and of the input.
"""

import numpy as np
import pytest

import minitorch
from minitorch import nn

torch = pytest.importorskip("torch")

TOL = {"float32": {"rtol": 1e-4, "atol": 2e-5}, "float64": {"rtol": 1e-9, "atol": 1e-11}}
DTYPES = ["float32", "float64"]


def _np(t):
    return t.detach().numpy()


def pair(torch_module, mine, dtype):
    """Torch's module in ``dtype`` and MiniTorch's with the same weights."""
    torch_module = torch_module.to(getattr(torch, dtype))
    mine.load_state_dict({k: v.detach().numpy() for k, v in torch_module.state_dict().items()})
    return torch_module, mine.double() if dtype == "float64" else mine


def flat(out):
    """Every tensor of a nested (output, (h, c)) result, in order."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat(o)]
    return [] if out is None else [out]


def run_both(tm, mm, arrays, dtype, call=None, seed=0):
    """Forward both on the same inputs; compare outputs; backward a random combination; compare grads."""
    call = call or (lambda m, *xs: m(*xs))
    arrays = [a.astype(dtype) if a.dtype.kind == "f" else a for a in arrays]
    t_in = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    m_in = [minitorch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    t_out, m_out = flat(call(tm, *t_in)), flat(call(mm, *m_in))
    assert len(t_out) == len(m_out)
    rng = np.random.default_rng(seed)
    t_loss = m_loss = 0
    for i, (t, m) in enumerate(zip(t_out, m_out)):
        assert tuple(m.shape) == tuple(t.shape), f"output {i}: {tuple(m.shape)} vs torch {tuple(t.shape)}"
        assert m.dtype.name == dtype
        np.testing.assert_allclose(_np(m), _np(t), err_msg=f"output {i}", **TOL[dtype])
        g = rng.standard_normal(tuple(t.shape)).astype(dtype)
        t_loss = t_loss + (t * torch.tensor(g)).sum()
        m_loss = m_loss + (m * minitorch.tensor(g)).sum()
    t_loss.backward()
    m_loss.backward()
    t_params = dict(tm.named_parameters())
    for name, p in mm.named_parameters():
        assert p.grad is not None, f"{name} got no gradient"
        np.testing.assert_allclose(_np(p.grad), _np(t_params[name].grad), err_msg=f"grad of {name}", **TOL[dtype])
    for i, (t, m) in enumerate(zip(t_in, m_in)):
        if t.grad is not None:
            np.testing.assert_allclose(_np(m.grad), _np(t.grad), err_msg=f"grad of input {i}", **TOL[dtype])
    return m_out


# ---------------------------------------------------------------------- RNN, LSTM, GRU
RECURRENT = [
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "batch_first": True}),
    ("LSTM", {"bias": False}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "batch_first": True}),
    ("RNN", {"nonlinearity": "tanh", "num_layers": 2}),
    ("RNN", {"nonlinearity": "relu", "bias": False}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind, kwargs", RECURRENT, ids=lambda v: str(v))
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_vs_torch(rng, dtype, kind, kwargs, with_state):
    I, H, T, N = 5, 6, 7, 3
    torch.manual_seed(0)
    tm, mm = pair(getattr(torch.nn, kind)(I, H, **kwargs), getattr(nn, kind)(I, H, **kwargs), dtype)
    layers = kwargs.get("num_layers", 1)
    x = rng.standard_normal((N, T, I) if kwargs.get("batch_first") else (T, N, I))
    arrays = [x]
    if with_state:
        arrays += [rng.standard_normal((layers, N, H)) * 0.5 for _ in range(2 if kind == "LSTM" else 1)]

    def call(m, x, *states):
        if not states:
            return m(x)
        return m(x, tuple(states) if kind == "LSTM" else states[0])

    run_both(tm, mm, arrays, dtype, call)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_recurrent_unbatched_input(rng, kind):
    torch.manual_seed(1)
    tm, mm = pair(getattr(torch.nn, kind)(4, 3), getattr(nn, kind)(4, 3), "float64")
    run_both(tm, mm, [rng.standard_normal((6, 4))], "float64")


def test_recurrent_parameter_names_shapes_and_init():
    m = nn.LSTM(10, 20, num_layers=2)
    t = torch.nn.LSTM(10, 20, num_layers=2)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in t.state_dict().items()
    ]
    bound = 1 / np.sqrt(20)
    for p in m.parameters():
        assert np.abs(p.data).max() <= bound
        assert p.data.std() > bound / 3  # spread over the interval, not all zero
    gru = nn.GRU(3, 4)
    assert tuple(gru.weight_ih_l0.shape) == (12, 3) and tuple(gru.weight_hh_l0.shape) == (12, 4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell"])
@pytest.mark.parametrize("with_state", [False, True])
def test_cells_vs_torch(rng, dtype, kind, with_state):
    torch.manual_seed(2)
    tm, mm = pair(getattr(torch.nn, kind)(5, 4), getattr(nn, kind)(5, 4), dtype)
    arrays = [rng.standard_normal((3, 5))]
    if with_state:
        arrays += [rng.standard_normal((3, 4)) for _ in range(2 if kind == "LSTMCell" else 1)]

    def call(m, x, *states):
        if not states:
            return m(x)
        return m(x, tuple(states) if kind == "LSTMCell" else states[0])

    run_both(tm, mm, arrays, dtype, call)


def test_lstm_cell_unbatched(rng):
    tm, mm = pair(torch.nn.LSTMCell(3, 2), nn.LSTMCell(3, 2), "float64")
    run_both(tm, mm, [rng.standard_normal(3)], "float64")


def test_recurrent_errors():
    lstm = nn.LSTM(3, 4)
    with pytest.raises(minitorch.errors.MiniTorchError, match="expected input"):
        lstm(minitorch.zeros(5, 2, 7))
    with pytest.raises(minitorch.errors.MiniTorchError, match="initial state"):
        lstm(minitorch.zeros(5, 2, 3), (minitorch.zeros(2, 2, 4), minitorch.zeros(2, 2, 4)))


# ---------------------------------------------------------------------- Embedding, LayerNorm, GELU
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 0])
def test_embedding_module(rng, dtype, padding_idx):
    tm, mm = pair(torch.nn.Embedding(7, 3, padding_idx=padding_idx), nn.Embedding(7, 3, padding_idx=padding_idx), dtype)
    run_both(tm, mm, [np.array([[0, 3, 3], [6, 0, 1]])], dtype)
    fresh = nn.Embedding(7, 3, padding_idx=2)
    assert np.all(fresh.weight.data[2] == 0) and fresh.weight.data.std() > 0.3


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [8, (4, 8)])
def test_layer_norm_module(rng, dtype, shape):
    torch.manual_seed(3)
    tm = torch.nn.LayerNorm(shape)
    with torch.no_grad():
        tm.weight.normal_()
        tm.bias.normal_()
    tm, mm = pair(tm, nn.LayerNorm(shape), dtype)
    x = rng.standard_normal((2, 4, 8)) * 3 + 1
    run_both(tm, mm, [x], dtype)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_module(rng, approximate):
    run_both(torch.nn.GELU(approximate), nn.GELU(approximate), [rng.standard_normal((3, 4)) * 3], "float64")


# ---------------------------------------------------------------------- MultiheadAttention
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize(
    "case", ["self", "cross", "bool_mask", "float_mask", "padding", "no_weights", "per_head", "causal"]
)
def test_multihead_attention_vs_torch(rng, dtype, batch_first, case):
    E, heads, N, L, S = 8, 2, 3, 4, 5
    torch.manual_seed(4)
    tm = torch.nn.MultiheadAttention(E, heads, batch_first=batch_first)
    with torch.no_grad():
        tm.in_proj_bias.normal_()
        tm.out_proj.bias.normal_()
    tm, mm = pair(tm, nn.MultiheadAttention(E, heads, batch_first=batch_first), dtype)
    tm.eval()
    mm.eval()

    def shape(length):
        return (N, length, E) if batch_first else (length, N, E)

    kwargs = {}
    if case == "bool_mask":
        mask = rng.random((L, L)) < 0.3
        np.fill_diagonal(mask, False)
        kwargs["attn_mask"] = mask
    elif case == "float_mask":
        kwargs["attn_mask"] = rng.standard_normal((L, L))
    elif case == "padding":
        pad = np.zeros((N, L), dtype=bool)
        pad[0, -1] = pad[2, -2:] = True
        kwargs["key_padding_mask"] = pad
    elif case == "causal":
        kwargs["attn_mask"] = ~np.tril(np.ones((L, L), dtype=bool))
        kwargs["is_causal"] = True
    if case == "cross":
        arrays = [rng.standard_normal(shape(L)), rng.standard_normal(shape(S)), rng.standard_normal(shape(S))]

        def call(m, q, k, v):
            return m(q, k, v)

        run_both(tm, mm, arrays, dtype, call)
        return
    names = list(kwargs)

    def call(m, x, *masks):
        lib = minitorch if isinstance(x, minitorch.Tensor) else torch
        extra = {n: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for n, v in kwargs.items()}
        if case in ("float_mask",):
            extra["attn_mask"] = extra["attn_mask"].to(x.dtype) if lib is torch else extra["attn_mask"].type_as(x)
        return m(x, x, x, need_weights=case != "no_weights", average_attn_weights=case != "per_head", **extra)

    del names
    run_both(tm, mm, [rng.standard_normal(shape(L))], dtype, call)


def test_multihead_attention_layout():
    m, t = nn.MultiheadAttention(8, 2), torch.nn.MultiheadAttention(8, 2)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in t.state_dict().items()
    ]
    assert np.all(m.in_proj_bias.data == 0) and np.all(m.out_proj.bias.data == 0)


# ---------------------------------------------------------------------- gradient clipping
@pytest.mark.parametrize("max_norm, norm_type", [(0.5, 2.0), (100.0, 2.0), (0.3, float("inf")), (1.0, 1.0)])
def test_clip_grad_norm_vs_torch(rng, max_norm, norm_type):
    grads = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    mine = [minitorch.tensor(g.astype(np.float32), requires_grad=True) for g in grads]
    theirs = [torch.tensor(g.astype(np.float32), requires_grad=True) for g in grads]
    for p, g in zip(mine, grads):
        p.grad = minitorch.tensor(g.astype(np.float32))
    for p, g in zip(theirs, grads):
        p.grad = torch.tensor(g.astype(np.float32))
    no_grad = minitorch.zeros(2, requires_grad=True)  # skipped: its grad is None
    total = nn.utils.clip_grad_norm_([*mine, no_grad], max_norm, norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert total.ndim == 0
    np.testing.assert_allclose(total.item(), expected.item(), rtol=1e-6)
    for p, t in zip(mine, theirs):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_clip_grad_value(rng):
    g = rng.standard_normal((4, 4)) * 3
    p, t = minitorch.tensor(g, requires_grad=True), torch.tensor(g, requires_grad=True)
    p.grad, t.grad = minitorch.tensor(g), torch.tensor(g)
    nn.utils.clip_grad_value_(p, 1.5)
    torch.nn.utils.clip_grad_value_(t, 1.5)
    np.testing.assert_array_equal(p.grad.numpy(), t.grad.numpy())
