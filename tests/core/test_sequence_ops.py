"""The ops of sequence models and attention: gradcheck in float64, then PyTorch as the oracle.

erf, gelu, masked_fill, tril, triu, chunk, split, embedding, layer_norm,
scaled_dot_product_attention, softmax over rows holding -inf, and the whole-sequence
recurrent ops (LSTMLayer, GRULayer, RNNLayer). Kept apart from ``test_ops_gradcheck.py``
and ``test_vs_torch.py`` (same recipe, same tolerances) so the sequence work has one file.
"""

import math

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck
from minitorch.nn import functional as F

torch = pytest.importorskip("torch")
from torch_oracle import compare, leaf  # noqa: E402  (PyTorch first)

TF = torch.nn.functional


def fn_of(lib):
    """``nn.functional`` of either library."""
    return F if lib is minitorch else TF


def check(fn, *inputs):
    assert gradcheck(fn, inputs)


DTYPES = ["float32", "float64"]


# ---------------------------------------------------------------------- erf and gelu
def test_erf_matches_math_erf_to_float64_precision():
    from minitorch.functions.special import erf_array

    x = np.concatenate([np.linspace(-8, 8, 20001), np.logspace(-20, 1, 300), [0.0, np.inf, -np.inf]])
    ref = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(erf_array(np, x), ref, rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(minitorch.erf(minitorch.tensor(x)).numpy(), ref, rtol=1e-15, atol=1e-300)
    assert np.isnan(erf_array(np, np.array([np.nan])))[0]


def test_erf_of_float16_is_computed_in_float32_as_torch():
    x = np.linspace(-4, 4, 161).astype(np.float16)
    got = minitorch.erf(minitorch.tensor(x))
    assert got.dtype == minitorch.float16
    want = torch.erf(torch.tensor(x)).numpy()
    np.testing.assert_allclose(got.numpy().astype(np.float32), want.astype(np.float32), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradcheck(rng, approximate):
    check(lambda x: F.gelu(x, approximate=approximate), leaf(rng.standard_normal((3, 5)) * 2))


def test_erf_gradcheck(rng):
    check(minitorch.erf, leaf(rng.standard_normal((4, 3))))


@pytest.mark.parametrize("dtype", DTYPES)
def test_erf_gelu_vs_torch(rng, dtype):
    x = rng.standard_normal((4, 6)) * 3
    compare(lambda lib, a: lib.erf(a), [x], dtype)
    compare(lambda lib, a: a.erf(), [x], dtype)
    compare(lambda lib, a: fn_of(lib).gelu(a), [x], dtype)
    compare(lambda lib, a: fn_of(lib).gelu(a, approximate="tanh"), [x], dtype)


def test_erf_of_integers_is_float32():
    assert minitorch.erf(minitorch.tensor([0, 1])).dtype == minitorch.float32


# ---------------------------------------------------------------------- masks and triangles
MASK_SHAPES = [(3, 4), (1, 4), (3, 1), (4,), ()]


@pytest.mark.parametrize("mask_shape", MASK_SHAPES, ids=str)
def test_masked_fill_gradcheck_and_torch(rng, mask_shape):
    mask = rng.random(mask_shape) < 0.5
    check(lambda x: x.masked_fill(minitorch.tensor(mask), -2.5), leaf(rng.standard_normal((3, 4))))
    for dtype in DTYPES:
        compare(lambda lib, x, m: x.masked_fill(m, -2.5), [rng.standard_normal((3, 4)), mask], dtype)
        compare(lambda lib, x, m: lib.masked_fill(x, m, float("-inf")), [rng.standard_normal((3, 4)), mask], dtype)


def test_masked_fill_errors():
    x = minitorch.zeros(3, 4)
    with pytest.raises(minitorch.errors.MiniTorchError, match="bool mask"):
        x.masked_fill(minitorch.ones(3, 4), 0.0)
    with pytest.raises(minitorch.errors.MiniTorchError, match="broadcast"):
        x.masked_fill(minitorch.ones(2, 4).bool(), 0.0)
    with pytest.raises(minitorch.errors.MiniTorchError, match="in-place"):  # out of place, (2, 3, 4) is fine
        x.masked_fill_(minitorch.ones(2, 3, 4).bool(), 0.0)


@pytest.mark.parametrize("value", [2.5, -2.5, 2.0, 7])
@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
def test_masked_fill_converts_the_value_to_the_tensors_dtype_as_torch(value, dtype):
    data, mask = [1, 0, 3], [True, False, True]
    ours = minitorch.tensor(np.array(data, dtype=dtype)).masked_fill(minitorch.tensor(mask), value)
    theirs = torch.tensor(np.array(data, dtype=dtype)).masked_fill(torch.tensor(mask), value)
    assert ours.tolist() == theirs.tolist() and str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    for bad in (float("nan"), float("inf"), 1e30):  # no int64 to become: an error in both
        with pytest.raises(RuntimeError, match="overflow"):
            minitorch.tensor([1, 2]).masked_fill(minitorch.tensor([True, False]), bad)


@pytest.mark.parametrize("diagonal", [-1, 0, 2])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu(rng, name, diagonal):
    check(lambda x: getattr(x, name)(diagonal), leaf(rng.standard_normal((2, 3, 4))))
    for dtype in DTYPES:
        compare(lambda lib, x: getattr(lib, name)(x, diagonal), [rng.standard_normal((2, 4, 3))], dtype)
    ones = rng.random((3, 3)) < 2
    compare(lambda lib, m: getattr(m, name)(diagonal), [ones])  # bool tensors too (causal masks)
    with pytest.raises(minitorch.errors.MiniTorchError, match="2 dimensions"):
        getattr(minitorch, name)(minitorch.ones(3))


# ---------------------------------------------------------------------- chunk and split
@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.chunk(3, 1),
        lambda x: x.chunk(4, -1),
        lambda x: x.split(2, 1),
        lambda x: x.split([1, 4, 2], 1),
        lambda x: x.split(10, 0),
    ],
)
def test_chunk_split_vs_torch(rng, call):
    x = rng.standard_normal((3, 7))
    check(lambda t: sum((p * (i + 1)).sum() for i, p in enumerate(call(t))), leaf(x))
    compare(lambda lib, t: tuple(call(t)), [x])


def test_chunk_split_are_views():
    x = minitorch.arange(12.0).reshape(3, 4)
    a, b = minitorch.split(x, 2, dim=1)
    assert isinstance(minitorch.chunk(x, 2), tuple)
    assert np.shares_memory(a.data, x.data) and np.shares_memory(b.data, x.data)
    assert [tuple(p.shape) for p in minitorch.chunk(minitorch.zeros(0), 3)] == [(0,)] * 3


# ---------------------------------------------------------------------- embedding
def test_embedding_gradcheck_with_repeats(rng):
    idx = minitorch.tensor([[0, 2, 2], [4, 0, 2]])
    check(lambda w: F.embedding(idx, w), leaf(rng.standard_normal((5, 3))))


def test_cpu_index_add_of_rows_sums_repeats_as_add_at(rng):
    """The sorted reduceat path of index_add (whole rows, an embedding's gradient) against np.add.at."""
    from minitorch.backends.cpu import CPU

    idx = rng.integers(0, 7, 300)
    rows = rng.standard_normal((300, 4, 3)).astype(np.float32)
    start = rng.standard_normal((9, 4, 3)).astype(np.float32)
    expected = start.copy()
    np.add.at(expected, idx, rows)
    got = CPU.index_add(start.copy(), idx, rows)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert not np.any(got[7:] != start[7:])  # rows no index names keep their values
    mixed = np.array([1, -1, 1])  # a negative index: np.add.at's own path (it wraps)
    expected = np.zeros((3, 2))
    np.add.at(expected, mixed, np.ones((3, 2)))
    np.testing.assert_array_equal(CPU.index_add(np.zeros((3, 2)), mixed, np.ones((3, 2))), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_vs_torch(rng, dtype, padding_idx):
    idx = np.array([[0, 2, 2, 4], [4, 1, 2, 0]])
    def fn(lib, w, i):
        return fn_of(lib).embedding(i, w, padding_idx=padding_idx)

    compare(fn, [rng.standard_normal((5, 3)), idx], dtype)


def test_embedding_errors():
    w = minitorch.randn(5, 3)
    with pytest.raises(IndexError, match="out of range"):
        F.embedding(minitorch.tensor([5]), w)
    with pytest.raises(minitorch.errors.MiniTorchError, match="integer"):
        F.embedding(minitorch.tensor([1.0]), w)


# ---------------------------------------------------------------------- layer_norm
@pytest.mark.parametrize("shape, normalized", [((4, 6), (6,)), ((2, 3, 5), (5,)), ((2, 3, 4), (3, 4))], ids=str)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(rng, shape, normalized, affine):
    x = rng.standard_normal(shape) * 2 + 1
    w, b = rng.standard_normal(normalized), rng.standard_normal(normalized)
    if affine:
        check(lambda x, w, b: F.layer_norm(x, normalized, w, b), leaf(x), leaf(w), leaf(b))
        for dtype in DTYPES:
            compare(lambda lib, x, w, b: fn_of(lib).layer_norm(x, normalized, w, b), [x, w, b], dtype)
    else:
        check(lambda x: F.layer_norm(x, normalized), leaf(x))
        for dtype in DTYPES:
            compare(lambda lib, x: fn_of(lib).layer_norm(x, normalized), [x], dtype)


def test_layer_norm_shape_errors():
    with pytest.raises(minitorch.errors.MiniTorchError, match="last dims"):
        F.layer_norm(minitorch.zeros(2, 3), (4,))


# ---------------------------------------------------------------------- softmax with -inf
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_rows_with_minus_inf(dtype):
    x = np.array([[0.5, -np.inf, 1.0, -np.inf], [-np.inf, -np.inf, 2.0, 0.0]])
    compare(lambda lib, a: a.softmax(-1), [x], dtype)
    fully = minitorch.full((1, 3), float("-inf")).softmax(-1)
    assert np.isnan(fully.numpy()).all()  # as PyTorch: 0/0


# ---------------------------------------------------------------------- attention
def _sdpa(lib):
    return F.scaled_dot_product_attention if lib is minitorch else TF.scaled_dot_product_attention


def test_sdpa_gradcheck(rng):
    q, k, v = (leaf(rng.standard_normal(shape)) for shape in ((2, 3, 4), (2, 5, 4), (2, 5, 6)))
    check(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), q, k, v)
    mask = leaf(rng.standard_normal((3, 5)))
    check(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), q, k, v, mask)
    check(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), q, k, v)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask", ["none", "bool", "float", "causal", "broadcast_bool", "scale"])
def test_sdpa_vs_torch(rng, dtype, mask):
    q, k, v = rng.standard_normal((2, 2, 4, 8)), rng.standard_normal((2, 2, 6, 8)), rng.standard_normal((2, 2, 6, 5))
    if mask == "none":
        compare(lambda lib, q, k, v: _sdpa(lib)(q, k, v), [q, k, v], dtype)
    elif mask == "scale":
        compare(lambda lib, q, k, v: _sdpa(lib)(q, k, v, scale=0.3), [q, k, v], dtype)
    elif mask == "causal":
        compare(lambda lib, q, k, v: _sdpa(lib)(q, k, v, is_causal=True), [q, k, v], dtype)
    elif mask == "float":
        m = rng.standard_normal((4, 6))
        compare(lambda lib, q, k, v, m: _sdpa(lib)(q, k, v, attn_mask=m), [q, k, v, m], dtype)
    else:
        shape = (4, 6) if mask == "bool" else (2, 1, 1, 6)
        m = rng.random(shape) < 0.6
        m[..., 0] = True
        compare(lambda lib, q, k, v, m: _sdpa(lib)(q, k, v, attn_mask=m), [q, k, v, m], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa_fully_masked_rows_give_zeros_as_torch(rng, dtype):
    q, k, v = rng.standard_normal((1, 3, 4)), rng.standard_normal((1, 3, 4)), rng.standard_normal((1, 3, 4))
    m = np.array([[True, False, False], [False, False, False], [True, True, True]])
    compare(lambda lib, q, k, v, m: _sdpa(lib)(q, k, v, attn_mask=m), [q, k, v, m], dtype)
    fm = np.where(m, 0.0, -np.inf)
    compare(lambda lib, q, k, v, m: _sdpa(lib)(q, k, v, attn_mask=m), [q, k, v, fm], dtype)


# ---------------------------------------------------------------------- whole-sequence recurrent ops
@pytest.mark.parametrize("bias", [True, False])
def test_recurrent_layers_gradcheck(rng, bias):
    from minitorch.functions import gru_layer, lstm_layer, rnn_layer

    T, N, I, H = 4, 2, 3, 3

    def p(*shape):
        return leaf(rng.standard_normal(shape) * 0.7)

    x, h0, c0 = p(T, N, I), p(N, H), p(N, H)

    def b(gates):
        return (p(gates * H), p(gates * H)) if bias else (None, None)

    def weighted(outputs):  # every output (all h, h_T, c_T) counts, each with its own weight
        return sum(o.sum() * (i + 1) for i, o in enumerate(outputs))

    check(lambda *a: weighted(lstm_layer(*a)), x, h0, c0, p(4 * H, I), p(4 * H, H), *b(4))
    check(lambda *a: weighted(gru_layer(*a)), x, h0, p(3 * H, I), p(3 * H, H), *b(3))
    check(lambda *a: weighted(rnn_layer(*a, "tanh")), x, h0, p(H, I), p(H, H), *b(1))
    check(lambda *a: weighted(rnn_layer(*a, "relu")), x, h0, p(H, I), p(H, H), *b(1))


@pytest.mark.parametrize(
    "options",
    [dict(proj_size=2), dict(bidirectional=True, num_layers=2), dict(proj_size=1, bidirectional=True, bias=False)],
)
def test_the_lstm_as_written_gradchecks_through_nn_lstm(rng, options):
    # With the fast kernels off: LSTMLayer as functions/recurrent.py writes it (tests/kernels
    # checks the CPU kernel against it), with a projection and in both directions.
    with minitorch.kernels.use_fast_kernels(False):
        lstm = minitorch.nn.LSTM(3, 4, **options).double()
        layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
        x = leaf(rng.standard_normal((5, 2, 3)))
        h0 = leaf(rng.standard_normal((layers, 2, options.get("proj_size") or 4)))
        c0 = leaf(rng.standard_normal((layers, 2, 4)))

        def run(x, h0, c0):
            out, (h_n, c_n) = lstm(x, (h0, c0))
            return out.sum() + (h_n * 2).sum() + (c_n * 3).sum()

        check(run, x, h0, c0)
        assert gradcheck(lambda *weights: run(x, h0, c0), tuple(lstm.parameters()))  # (nudged in place)


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_fill_with_a_value_that_requires_grad_as_torch(dtype):
    # The 0-d value gets the sum of the gradients of the positions it filled.
    mask = np.array([[True, False], [True, True]])
    inputs = [np.arange(4.0).reshape(2, 2), np.float64(5.0)]
    compare(lambda lib, x, v: x.masked_fill(lib.tensor(mask), v), inputs, dtype)


@pytest.mark.parametrize("keys", [1, 2, 5, 7, 64, 65])
def test_attention_row_max_is_numpys_max(keys):
    """The halving row max of attention's softmax: the same maxima as ``max``, odd lengths,
    -inf and NaN included."""
    from minitorch.functions.attention import _row_max

    scores = np.random.default_rng(keys).standard_normal((3, 4, keys)).astype(np.float32)
    scores[0, 0] = -np.inf
    scores[1, 2, keys // 2] = np.nan
    np.testing.assert_array_equal(_row_max(np, scores), scores.max(axis=-1, keepdims=True))


def test_attention_keeps_float32_with_a_numpy_scale():
    """A NumPy float64 scale does not promote float32 attention (q is scaled in its own dtype)."""
    q = minitorch.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32))
    out = F.scaled_dot_product_attention(q, q, q, scale=np.float64(0.5))
    assert out.dtype == minitorch.float32
    ref = TF.scaled_dot_product_attention(*(torch.tensor(q.numpy()),) * 3, scale=0.5)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
