"""Regressions found by running nn / functional / amp side by side with PyTorch.

Each test builds the same case in both frameworks and compares values, gradients, dtypes
or key lists; every one failed before its fix.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _pair(a: np.ndarray) -> tuple[object, object]:
    return torch.tensor(a, requires_grad=True), mt.tensor(a, requires_grad=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("q_shape", [(4, 8), (2, 2, 3, 8)])
def test_sdpa_float_mask_gradient_when_mask_has_the_scores_shape(dtype, q_shape):
    # The mask's gradient came out multiplied by the 1/sqrt(E) scale when the mask was
    # not broadcast (it shared its array with the scores' gradient, then scaled in place).
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(q_shape).astype(dtype) for _ in range(3))
    mask = rng.standard_normal(q_shape[:-1] + (q_shape[-2],)).astype(dtype)
    w = rng.standard_normal(q_shape).astype(dtype)
    grads = []
    for lib, make in ((torch, lambda a: _pair(a)[0]), (mt, lambda a: _pair(a)[1])):
        tq, tk, tv, tm = (make(a) for a in (q, k, v, mask))
        out = lib.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm)
        (out * lib.tensor(w)).sum().backward()
        grads.append([t.grad.detach().numpy() for t in (tq, tk, tv, tm)])
    tol = 1e-5 if dtype == np.float32 else 1e-10
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


def test_multihead_attention_3d_float_mask_gradient():
    rng = np.random.default_rng(1)
    E, H, N, L = 8, 2, 3, 4
    tm = torch.nn.MultiheadAttention(E, H).double()
    mm = mt.nn.MultiheadAttention(E, H).double()
    mm.load_state_dict({k: v.detach().numpy() for k, v in tm.state_dict().items()})
    x = rng.standard_normal((L, N, E))
    mask = rng.standard_normal((N * H, L, L))
    grads = []
    for lib, m in ((torch, tm), (mt, mm)):
        tx, tmask = lib.tensor(x), lib.tensor(mask, requires_grad=True)
        out, _ = m(tx, tx, tx, attn_mask=tmask, need_weights=False)
        (out * out).sum().backward()
        grads.append(tmask.grad.detach().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-12)


LOSSES = {
    "bce": lambda F, a, b: F.binary_cross_entropy(a.sigmoid(), b),
    "bce_with_logits": lambda F, a, b: F.binary_cross_entropy_with_logits(a, b),
    "smooth_l1": lambda F, a, b: F.smooth_l1_loss(a, b),
    "huber": lambda F, a, b: F.huber_loss(a, b, delta=0.5),
    "l1_none": lambda F, a, b: F.l1_loss(a, b, reduction="none"),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_pointwise_losses_run_in_float32_under_autocast(name):
    # API.md: losses run in float32 under autocast; these returned float16.
    a = np.array([-1.0, 0.25, 2.0], dtype=np.float16)
    b = np.array([0.0, 1.0, 1.0], dtype=np.float16)
    results = []
    for lib in (torch, mt):
        x = lib.tensor(a, requires_grad=True)
        with lib.autocast("cpu", dtype=lib.float16):
            loss = LOSSES[name](lib.nn.functional, x, lib.tensor(b))
        loss.sum().backward()
        results.append((str(loss.dtype).split(".")[-1], str(x.grad.dtype).split(".")[-1], loss.detach().numpy()))
    assert results[1][:2] == results[0][:2] == ("float32", "float16")
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-3)


def _shared(lib):
    seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 2))
    seq[1] = seq[0]  # one module under two names
    return seq


def test_state_dict_lists_a_shared_module_under_each_name():
    assert (
        list(_shared(mt).state_dict())
        == list(_shared(torch).state_dict())
        == [
            "0.weight",
            "0.bias",
            "1.weight",
            "1.bias",
        ]
    )
    assert len(list(_shared(mt).parameters())) == 2  # parameters() still lists each once
    sd = {k: v.detach().numpy() for k, v in _shared(torch).state_dict().items()}
    _shared(mt).load_state_dict(sd)  # strict: no unexpected keys


def test_module_apply_and_load_state_dict_result():
    names = {}
    for lib in (torch, mt):
        model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU())
        names[lib] = []
        assert model.apply(lambda m, seen=names[lib]: seen.append(type(m).__name__)) is model
        assert str(model.load_state_dict(model.state_dict())) == "<All keys matched successfully>"
    assert names[mt] == names[torch] == ["Linear", "ReLU", "Sequential"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unbatched_conv2d_and_max_pool2d(dtype):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 6, 5)).astype(dtype)
    w = rng.standard_normal((3, 2, 3, 2)).astype(dtype)
    b = rng.standard_normal(3).astype(dtype)
    outs, grads = [], []
    for lib, k in ((torch, 0), (mt, 1)):
        tx, tw, tb = (_pair(a)[k] for a in (x, w, b))
        F = lib.nn.functional
        y = F.conv2d(tx, tw, tb, stride=(2, 1), padding=1)
        z = F.max_pool2d(y, 2, 1)
        (z * z).sum().backward()
        outs.append((y.detach().numpy(), z.detach().numpy()))
        grads.append([t.grad.numpy() for t in (tx, tw, tb)])
    tol = 1e-5 if dtype == np.float32 else 1e-10
    for a, c in zip(outs[0] + tuple(grads[0]), outs[1] + tuple(grads[1])):
        assert a.shape == c.shape
        np.testing.assert_allclose(c, a, rtol=tol, atol=tol)


def _numpy_state(module):
    return {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}


@pytest.mark.parametrize("cls", ["BatchNorm1d", "BatchNorm2d"])
def test_batch_norm_bias_false_and_repr(cls):
    # PyTorch 2.13's BatchNorm takes bias=False (scale only) and prints bias= in its repr.
    shape = (4, 3) if cls == "BatchNorm1d" else (4, 3, 2, 2)
    x = np.random.default_rng(3).standard_normal(shape)
    tm, mm = getattr(torch.nn, cls)(3, bias=False).double(), getattr(mt.nn, cls)(3, bias=False).double()
    assert repr(mm) == repr(tm)
    keys = ["weight", "running_mean", "running_var", "num_batches_tracked"]
    assert list(mm.state_dict()) == list(tm.state_dict()) == keys
    with torch.no_grad():
        tm.weight.copy_(torch.tensor([0.5, -2.0, 3.0]))
    mm.load_state_dict(_numpy_state(tm))
    np.testing.assert_allclose(mm(mt.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), rtol=1e-12)
    assert repr(mt.nn.BatchNorm2d(2, affine=False)) == repr(torch.nn.BatchNorm2d(2, affine=False))


def test_batch_norm_refuses_integer_input_and_mixed_dtypes():
    # PyTorch raises for both; MiniTorch used to normalise silently (in the parameters' dtype).
    with pytest.raises(mt.errors.MiniTorchError, match=r"batch_norm: .*int64"):
        mt.nn.BatchNorm1d(3)(mt.zeros(2, 3, dtype=mt.int64))
    with pytest.raises(mt.errors.MiniTorchError, match=r"input is minitorch.float64 but running_mean is .*float32"):
        mt.nn.BatchNorm1d(3)(mt.zeros(2, 3, dtype=mt.float64))
    # float16 input with float32 statistics is allowed, as in PyTorch
    out = mt.nn.functional.batch_norm(mt.ones(2, 3, dtype=mt.float16), mt.zeros(3), mt.ones(3))
    assert out.dtype == mt.float16


def test_batch_norm_loads_a_state_dict_without_num_batches_tracked():
    # PyTorch accepts old checkpoints that lack the counter (it keeps its current value).
    for lib in (torch, mt):
        bn = lib.nn.BatchNorm1d(3)
        sd = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
        assert str(lib.nn.Sequential(bn).load_state_dict({"0." + k: v for k, v in sd.items()})) == (
            "<All keys matched successfully>"
        )
    # other keys are still required
    with pytest.raises(mt.errors.MiniTorchError, match="missing keys: running_var"):
        mt.nn.BatchNorm1d(3).load_state_dict({"weight": np.ones(3), "bias": np.zeros(3), "running_mean": np.zeros(3)})


def test_incompatible_keys_print_as_pytorch():
    results = []
    for lib in (torch, mt):
        sd = dict(lib.nn.Linear(2, 2).state_dict())
        sd["extra"] = sd.pop("bias")
        results.append(repr(lib.nn.Linear(2, 2).load_state_dict(sd, strict=False)))
    assert results[1] == results[0] == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['extra'])"


def test_max_pool_module_repr_and_unsupported_options():
    for args in [(2,), (3, 1, 1), ((2, 3), (1, 2))]:
        assert repr(mt.nn.MaxPool2d(*args)) == repr(torch.nn.MaxPool2d(*args))
    with pytest.raises(mt.errors.MiniTorchError, match="ceil_mode"):
        mt.nn.MaxPool2d(2, ceil_mode=True)


def test_layer_norm_and_rnn_cell_reprs():
    for args, kw in [((4,), {}), (([3, 4],), {"elementwise_affine": False}), (((3, 4),), {"bias": False})]:
        assert repr(mt.nn.LayerNorm(*args, **kw)) == repr(torch.nn.LayerNorm(*args, **kw))
    for kw in [{}, {"nonlinearity": "relu"}, {"bias": False, "nonlinearity": "relu"}]:
        assert repr(mt.nn.RNNCell(3, 4, **kw)) == repr(torch.nn.RNNCell(3, 4, **kw))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_recurrent_layers_take_an_empty_batch(cls):
    # The input projection reshaped with -1, which an empty batch (N = 0) cannot resolve.
    shapes = []
    for lib in (torch, mt):
        x = lib.zeros(2, 0, 3, requires_grad=True)
        out, h = getattr(lib.nn, cls)(3, 4, num_layers=2)(x)
        out.sum().backward()
        h_n = h[0] if cls == "LSTM" else h
        shapes.append((tuple(out.shape), tuple(h_n.shape), tuple(x.grad.shape)))
    assert shapes[1] == shapes[0] == ((2, 0, 4), (2, 0, 4), (2, 0, 3))
    assert tuple(mt.nn.GRUCell(3, 4)(mt.zeros(0, 3)).shape) == (0, 4)


def test_recurrent_layer_input_errors_are_clear():
    with pytest.raises(mt.errors.MiniTorchError, match=r"RNN: expected a sequence length larger than 0.*\(0, 1, 3\)"):
        mt.nn.RNN(3, 4)(mt.zeros(0, 1, 3))
    with pytest.raises(mt.errors.MiniTorchError, match=r"LSTM: the initial state must be a pair \(h_0, c_0\)"):
        mt.nn.LSTM(3, 4)(mt.zeros(2, 1, 3), mt.zeros(1, 1, 4))
    # an unbatched input takes an unbatched state (num_layers, H), as in PyTorch
    with pytest.raises(mt.errors.MiniTorchError, match=r"expected an initial state of shape \(1, 4\).*got \(1, 1, 4\)"):
        mt.nn.GRU(3, 4)(mt.zeros(2, 3), mt.zeros(1, 1, 4))
    with pytest.raises(RuntimeError):
        torch.nn.GRU(3, 4)(torch.zeros(2, 3), torch.zeros(1, 1, 4))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_dtype_argument_and_integer_input(name):
    x = np.array([[1, 2, 3], [0, 0, 5]])
    ours = getattr(mt.nn.functional, name)(mt.tensor(x), -1, dtype=mt.float64)
    theirs = getattr(torch.nn.functional, name)(torch.tensor(x), -1, dtype=torch.float64)
    assert ours.dtype == mt.float64
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    # a float32 input computed in float64: the gradient comes back as float32
    a = np.array([[0.5, -1.0, 2.0]], dtype=np.float32)
    grads = []
    for lib in (torch, mt):
        t = lib.tensor(a, requires_grad=True)
        out = getattr(lib.nn.functional, name)(t, 1, dtype=lib.float64)
        (out * lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64)).sum().backward()
        grads.append(t.grad)
    assert grads[1].dtype == mt.float32
    np.testing.assert_allclose(grads[1].numpy(), grads[0].numpy(), rtol=1e-6)
    # PyTorch refuses integer input without dtype=; MiniTorch converted it silently
    with pytest.raises(RuntimeError):
        getattr(torch.nn.functional, name)(torch.tensor(x), -1)
    with pytest.raises(mt.errors.MiniTorchError, match=rf"{name}: expected a floating-point input, got .*int64"):
        getattr(mt.nn.functional, name)(mt.tensor(x), -1)


@pytest.mark.parametrize("mask_dtype", ["float64", "int64", "float16"])
def test_sdpa_refuses_masks_of_another_dtype(mask_dtype):
    # PyTorch accepts bool, float32 or the query's dtype; MiniTorch rounded any mask to the query's dtype.
    def call(lib):
        q = lib.zeros(3, 4)
        mask = lib.zeros(3, 5, dtype=getattr(lib, mask_dtype))
        return lib.nn.functional.scaled_dot_product_attention(q, lib.zeros(5, 4), lib.zeros(5, 4), attn_mask=mask)

    with pytest.raises((RuntimeError, AssertionError)):
        call(torch)
    with pytest.raises(mt.errors.MiniTorchError, match=rf"attn_mask must be bool, float32 .* got .*{mask_dtype}"):
        call(mt)


def test_sdpa_float32_mask_with_float64_queries():
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    mask = rng.standard_normal((3, 3)).astype(np.float32)
    outs = []
    for lib in (torch, mt):
        out = lib.nn.functional.scaled_dot_product_attention(
            lib.tensor(q), lib.tensor(k), lib.tensor(v), attn_mask=lib.tensor(mask)
        )
        outs.append(out.numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-10)


@pytest.mark.parametrize(
    "shapes, kwargs, match",
    [
        (((3, 4), (3, 2, 4), (3, 2, 4)), {}, "all be batched"),
        (((3, 2, 4), (3, 2, 4), (4, 2, 4)), {}, "key and value must have one shape"),
        (((3, 2, 4), (3, 2, 4), (3, 2, 4)), {"attn_mask": (2, 3, 3)}, r"attn_mask should be .* \(4, 3, 3\)"),
        (((3, 2, 4), (3, 2, 4), (3, 2, 4)), {"attn_mask": (3, 3, "float64")}, "attn_mask must be bool or have"),
        (((3, 2, 4), (3, 2, 5), (3, 2, 5)), {}, "expected embed_dim 4"),
    ],
)
def test_multihead_attention_input_errors(shapes, kwargs, match):
    # Each raises in PyTorch; MiniTorch ran on (unbatched query with batched keys) or failed
    # deep inside reshape/matmul with a message about another op.
    def call(lib):
        m = lib.nn.MultiheadAttention(4, 2)
        extra = {}
        for name, spec in kwargs.items():
            dtype = getattr(lib, spec[-1]) if isinstance(spec[-1], str) else lib.bool
            extra[name] = lib.zeros(*[s for s in spec if not isinstance(s, str)], dtype=dtype)
        return m(*(lib.zeros(*s) for s in shapes), **extra)

    with pytest.raises((RuntimeError, AssertionError)):
        call(torch)
    with pytest.raises(mt.errors.MiniTorchError, match=match):
        call(mt)


@pytest.mark.parametrize(
    "grads",
    [
        [np.array([np.nan, 1.0, 0.0], np.float32)],  # a NaN norm makes every gradient NaN, as in PyTorch
        [np.array([3.0, 4.0], np.float32), np.array([3.0, 4.0])],  # float32 + float64: a float64 norm
        [np.array([0.3, -0.4], np.float32), np.array([[1e-3]], np.float32)],  # under max_norm: unchanged
    ],
)
def test_clip_grad_norm_matches_torch(grads):
    results = []
    for lib in (torch, mt):
        params = [lib.nn.Parameter(lib.tensor(np.zeros_like(g))) for g in grads]
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g.copy())
        total = lib.nn.utils.clip_grad_norm_(params, 1.0)
        results.append([total] + [p.grad for p in params])
    for theirs, ours in zip(*results):
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_conv2d_refuses_a_weight_without_output_channels():
    # PyTorch raises; MiniTorch returned an empty (N, 0, Ho, Wo) result.
    with pytest.raises(RuntimeError):
        torch.nn.functional.conv2d(torch.zeros(1, 1, 5, 5), torch.zeros(0, 1, 3, 3))
    with pytest.raises(mt.errors.MiniTorchError, match=r"conv2d: the weight \(0, 1, 3, 3\) has no output channels"):
        mt.nn.functional.conv2d(mt.zeros(1, 1, 5, 5), mt.zeros(0, 1, 3, 3))


def test_a_pytorch_state_dict_loads_as_it_is():
    # API.md: PyTorch state dicts load as they are; torch tensors were refused
    # ("expected a Tensor (or an array), got Tensor").
    theirs, ours = (
        lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.BatchNorm2d(2), lib.nn.Flatten(), lib.nn.LSTM(8, 3))
        for lib in (torch, mt)
    )
    theirs[1].running_mean.fill_(0.5)
    assert str(ours.load_state_dict(theirs.state_dict())) == "<All keys matched successfully>"
    for key, value in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[key].numpy(), value.numpy())
    ours.load_state_dict(dict(theirs.named_parameters()), strict=False)  # parameters that require grad too
    with pytest.raises(mt.errors.MiniTorchError, match=r"0.weight: expected a Tensor .* got builtins.list"):
        ours.load_state_dict({"0.weight": [1.0]}, strict=False)


def test_pytorch_argument_order_of_conv_pool_dropout_and_attention():
    # Positional calls written for PyTorch reach the same arguments (bias of Conv2d is the 8th,
    # batch_first of MultiheadAttention the 9th); the options MiniTorch lacks raise at non-defaults.
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    outs = []
    for lib in (torch, mt):
        F = lib.nn.functional
        y = F.conv2d(lib.tensor(x), lib.tensor(w), None, 1, 1, 1, 1)
        y = F.max_pool2d(y, 2, 1, 0, 1, False, False)
        outs.append(F.dropout(y, 0.5, False, False).numpy())
        conv = lib.nn.Conv2d(2, 3, 3, 1, 1, 1, 1, False)
        attn = lib.nn.MultiheadAttention(4, 2, 0.0, True, False, False, None, None, True)
        assert conv.bias is None and attn.batch_first is True
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-12)
    for call, match in [
        (lambda: mt.nn.functional.conv2d(mt.tensor(x), mt.tensor(w), groups=2), "groups=2"),
        (lambda: mt.nn.Conv2d(2, 4, 3, dilation=2), "dilation=2"),
        (lambda: mt.nn.Conv2d(2, 4, 3, padding_mode="reflect"), "padding_mode='reflect'"),
        (lambda: mt.nn.functional.max_pool2d(mt.tensor(x), 2, ceil_mode=True), "ceil_mode=True"),
        (lambda: mt.nn.MultiheadAttention(4, 2, kdim=3), "kdim=3"),
    ]:
        with pytest.raises((mt.errors.MiniTorchError, ValueError), match=match):
            call()


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3,), L.ones(3, dtype=L.float64)),
        lambda L: L.nn.LayerNorm(3)(L.ones(2, 3, dtype=L.float64)),
        lambda L: L.nn.functional.layer_norm(L.ones(2, 3, dtype=L.int64), (3,)),
        lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3), L.ones(1, 1, 2, 2), L.ones(1, dtype=L.float64)),
        lambda L: L.nn.functional.dropout(L.ones(3, dtype=L.int64), 0.5, True),
    ],
    ids=["layer_norm_weight", "LayerNorm_module", "layer_norm_int", "conv2d_bias", "dropout_int"],
)
def test_mixed_or_integer_dtypes_raise_as_in_pytorch(call):
    # Each ran in MiniTorch (promoting or converting); PyTorch refuses each.
    with pytest.raises((RuntimeError, NotImplementedError)):
        call(torch)
    with pytest.raises(mt.errors.MiniTorchError, match=r"layer_norm|conv2d|dropout"):
        call(mt)


def test_dropout_of_integers_where_pytorch_allows_it():
    for p, want in [(0.0, [1, 1, 1]), (1.0, [0, 0, 0])]:
        for lib in (torch, mt):
            out = lib.nn.functional.dropout(lib.ones(3, dtype=lib.int64), p, True)
            assert out.tolist() == want and str(out.dtype).endswith("int64")


@pytest.mark.parametrize("op", ["layer_norm", "batch_norm"])
def test_float16_input_with_float32_parameters(op):
    # PyTorch keeps the input's dtype (float16) for the output and gives the float32
    # parameters float32 gradients; MiniTorch's output was promoted to float32.
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 3, 5)).astype(np.float16)
    n = 5 if op == "layer_norm" else 3
    w, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    results = []
    for lib in (torch, mt):
        tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        if op == "layer_norm":
            y = lib.nn.functional.layer_norm(tx, (5,), tw, tb)
        else:
            y = lib.nn.functional.batch_norm(tx, lib.zeros(3), lib.ones(3), tw, tb, True)
        (y.float() * lib.tensor(np.linspace(-1, 1, 60).reshape(4, 3, 5).astype(np.float32))).sum().backward()
        results.append([y, tx.grad, tw.grad, tb.grad])
    for theirs, ours in zip(*results):
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("kernel, stride, padding", [(2, 1, 1), (3, 2, 1), (3, 1, 1), ((3, 2), (1, 2), (1, 0))])
def test_max_pool_padding_with_minus_inf_windows(kernel, stride, padding):
    # A window whose real pixels are all -inf sends its gradient to its first real pixel in
    # PyTorch; MiniTorch let the -inf border win, so that gradient was dropped.
    x = np.array([[[[-np.inf, -np.inf, 1.0], [np.nan, -np.inf, -np.inf], [-np.inf, 2.0, -np.inf]]]])
    results = []
    for lib in (torch, mt):
        t = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.max_pool2d(t, kernel, stride, padding)
        out.sum().backward()
        results.append((out.detach().numpy(), t.grad.numpy()))
    for theirs, ours in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_layer_norm_takes_a_numpy_integer_as_normalized_shape():
    # PyTorch takes any integral number (a size read from a NumPy shape); MiniTorch tried to iterate it.
    x = np.random.default_rng(7).standard_normal((2, 4))
    theirs = torch.nn.LayerNorm(np.int64(4)).double()(torch.tensor(x))
    ours = mt.nn.LayerNorm(np.int64(4)).double()(mt.tensor(x))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    assert mt.nn.LayerNorm(np.int64(4)).normalized_shape == (4,)


@pytest.mark.parametrize("norm_type", ["inf", 0, 0.5, -1, float("-inf"), 3.0])
def test_clip_grad_norm_other_norm_types(norm_type):
    # "inf" as a string and norm_type 0 raised; -inf gave another number than PyTorch's
    # (which takes the norm of the per-parameter norms).
    grads = [np.array([3.0, -4.0, 0.0], np.float32), np.array([[0.5, 0.0]], np.float32)]
    results = []
    for lib in (torch, mt):
        params = [lib.nn.Parameter(lib.tensor(np.zeros_like(g))) for g in grads]
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g.copy())
        total = lib.nn.utils.clip_grad_norm_(params, 0.7, norm_type, foreach=False)
        results.append([total.numpy()] + [p.grad.numpy() for p in params])
    for theirs, ours in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_relu_and_dropout_accept_inplace():
    # nn.ReLU(inplace=True) is everywhere in PyTorch code; MiniTorch's ReLU took no argument.
    # The values are PyTorch's; MiniTorch returns a new tensor and leaves the input as it was.
    x = np.array([-1.0, 0.5, 2.0])
    for lib in (torch, mt):
        assert repr(lib.nn.ReLU(inplace=True)) == "ReLU(inplace=True)" and repr(lib.nn.ReLU()) == "ReLU()"
        assert lib.nn.ReLU(True)(lib.tensor(x)).tolist() == [0.0, 0.5, 2.0]
        assert lib.nn.Dropout(0.5, inplace=True).eval()(lib.tensor(x)).tolist() == x.tolist()
        assert lib.nn.functional.dropout(lib.tensor(x), 0.0, True, True).tolist() == x.tolist()
    assert "inplace=True" in repr(mt.nn.Dropout(0.5, inplace=True))


@pytest.mark.parametrize(
    "shape, call",
    [
        ((3, 0), lambda L, x: L.nn.functional.softmax(x, 1)),
        ((3, 0), lambda L, x: L.nn.functional.log_softmax(x, -1)),
        ((0, 3), lambda L, x: L.nn.functional.scaled_dot_product_attention(L.ones(2, 3), x, L.ones(0, 4))),
        ((0, 2, 4), lambda L, x: L.nn.MultiheadAttention(4, 2)(x, x, x)[0]),
        ((3, 0, 4), lambda L, x: L.nn.MultiheadAttention(4, 2)(x, x, x)[0]),
        ((0, 3), lambda L, x: L.nn.BatchNorm1d(3)(x)),
    ],
    ids=["softmax", "log_softmax", "sdpa_no_keys", "mha_L0", "mha_N0", "batch_norm_N0"],
)
def test_empty_inputs_run_as_in_pytorch(shape, call):
    # Each raised in MiniTorch (max() over an empty axis, reshape(-1) of an empty batch,
    # "more than 1 value per channel" for an empty batch); PyTorch returns empty or zero results.
    results = []
    for lib in (torch, mt):
        x = lib.zeros(*shape, requires_grad=True)
        out = call(lib, x)
        out.sum().backward()
        results.append((tuple(out.shape), out.detach().numpy().tolist(), tuple(x.grad.shape)))
    assert results[1] == results[0]


def test_batch_norm_on_an_empty_batch_keeps_its_statistics():
    for lib in (torch, mt):
        bn = lib.nn.BatchNorm2d(2)
        bn(lib.zeros(3, 2, 0, 4))
        assert bn.running_mean.tolist() == [0.0, 0.0] and bn.running_var.tolist() == [1.0, 1.0]
        assert int(bn.num_batches_tracked) == 1
    with pytest.raises(mt.errors.MiniTorchError, match="more than 1 value per channel"):
        mt.nn.BatchNorm1d(2)(mt.zeros(1, 2))
    with pytest.raises(mt.errors.MiniTorchError, match=r"max_pool2d: .*non-zero C, H and W.*\(1, 0, 4, 4\)"):
        mt.nn.functional.max_pool2d(mt.zeros(1, 0, 4, 4), 2)


def test_container_and_layer_methods_pytorch_code_calls():
    # Methods PyTorch code calls that MiniTorch lacked (AttributeError).
    for lib in (torch, mt):
        seq = lib.nn.Sequential(lib.nn.Linear(1, 2), lib.nn.ReLU())
        seq.insert(1, lib.nn.Tanh()).extend([lib.nn.Linear(2, 3)])
        assert type(seq.pop(0)).__name__ == "Linear"
        assert [type(m).__name__ for m in seq] == ["Tanh", "ReLU", "Linear"] and list(seq.state_dict()) == [
            "2.weight",
            "2.bias",
        ]
        layers = lib.nn.ModuleList([lib.nn.ReLU()])
        layers.insert(0, lib.nn.Linear(1, 1))
        assert type(layers.pop(0)).__name__ == "Linear" and len(layers) == 1
        with pytest.raises(IndexError):
            seq.insert(7, lib.nn.ReLU())
        lstm = lib.nn.LSTM(3, 4, num_layers=2)
        lstm.flatten_parameters()
        assert [[tuple(p.shape) for p in layer] for layer in lstm.all_weights] == [
            [(16, 3), (16, 4), (16,), (16,)],
            [(16, 4), (16, 4), (16,), (16,)],
        ]
    bn = mt.nn.BatchNorm1d(2)
    bn(mt.tensor([[1.0, 2.0], [3.0, 5.0]]))
    bn.weight.data[...] = 3.0
    bn.reset_parameters()
    assert bn.running_mean.tolist() == [0.0, 0.0] and bn.running_var.tolist() == [1.0, 1.0]
    assert int(bn.num_batches_tracked) == 0 and bn.weight.tolist() == [1.0, 1.0]
    cell = mt.nn.GRUCell(2, 4)
    cell.reset_parameters()
    assert float(cell.weight_ih.abs().max()) <= 0.5  # U(-1/sqrt(4), 1/sqrt(4))


def test_embedding_from_pretrained():
    weights = np.arange(6.0).reshape(3, 2)
    idx = np.array([2, 0, 2])
    for freeze in (True, False):
        results = []
        for lib in (torch, mt):
            emb = lib.nn.Embedding.from_pretrained(lib.tensor(weights), freeze=freeze, padding_idx=1)
            results.append((emb(lib.tensor(idx)).tolist(), emb.weight.requires_grad, emb.padding_idx, repr(emb)))
        assert results[1] == results[0]


def test_functional_ops_take_pytorch_keyword_names():
    # The first argument is ``input`` in PyTorch; MiniTorch called it ``x``.
    rng = np.random.default_rng(8)
    img, w = rng.standard_normal((1, 1, 4, 4)), rng.standard_normal((2, 1, 3, 3))
    vec = rng.standard_normal((2, 3))
    calls = [
        lambda L: L.nn.functional.conv2d(input=L.tensor(img), weight=L.tensor(w), padding=1),
        lambda L: L.nn.functional.max_pool2d(input=L.tensor(img), kernel_size=2),
        lambda L: L.nn.functional.softmax(input=L.tensor(vec), dim=1),
        lambda L: L.nn.functional.log_softmax(input=L.tensor(vec), dim=0),
        lambda L: L.nn.functional.layer_norm(input=L.tensor(vec), normalized_shape=(3,)),
        lambda L: L.nn.functional.batch_norm(input=L.tensor(vec), running_mean=None, running_var=None, training=True),
        lambda L: L.nn.functional.dropout(input=L.tensor(vec), p=0.5, training=False),
    ]
    for call in calls:
        np.testing.assert_allclose(call(mt).numpy(), call(torch).numpy(), rtol=1e-10, atol=1e-12)
