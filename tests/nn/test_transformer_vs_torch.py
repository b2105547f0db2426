"""``nn.Transformer`` and its layers against PyTorch 2.13: torch's state_dict loads unchanged, same outputs and grads.

Dropout is 0 (the random streams differ), so every difference is the arithmetic. With a
key padding mask PyTorch's eval-mode "fast path" zeroes padded positions (nested tensors),
so those cases run in train mode, where PyTorch takes the plain path MiniTorch implements.
"""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

D, H, FF = 8, 2, 16


def _pair(name, *args, **kwargs):
    """(torch module, minitorch module with torch's weights), both with dropout 0."""
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, dropout=0.0, **kwargs)
    mine = getattr(minitorch.nn, name)(*args, dropout=0.0, **kwargs)
    result = mine.load_state_dict(theirs.state_dict())  # torch tensors, unchanged
    assert not result.missing_keys and not result.unexpected_keys
    assert list(mine.state_dict()) == list(theirs.state_dict())
    return theirs, mine


def _inputs(*shapes, seed=1):
    g = np.random.default_rng(seed)
    arrays = [g.standard_normal(s).astype(np.float32) for s in shapes]
    return ([torch.tensor(a, requires_grad=True) for a in arrays],
            [minitorch.tensor(a, requires_grad=True) for a in arrays])


def _compare(out_t, out_m, ins_t, ins_m, params_t=(), params_m=(), atol=2e-5):
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), atol=atol, rtol=1e-4)
    weights = np.cos(np.arange(out_t.numel(), dtype=np.float32)).reshape(tuple(out_t.shape))
    (out_t * torch.tensor(weights)).sum().backward()
    (out_m * minitorch.tensor(weights)).sum().backward()
    for a, b in zip(list(ins_t) + list(params_t), list(ins_m) + list(params_m)):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), atol=atol * 10, rtol=1e-3)


def _masks(L, S, lib):
    causal = lib.nn.Transformer.generate_square_subsequent_mask(L)
    return {"none": None, "causal float": causal, "bool": lib.ones(L, S, dtype=lib.bool).triu(1)}


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("mask", ["none", "causal float", "bool"])
def test_encoder_layer(norm_first, batch_first, activation, mask):
    theirs, mine = _pair("TransformerEncoderLayer", D, H, FF, activation=activation, batch_first=batch_first,
                         norm_first=norm_first)
    (x_t,), (x_m,) = _inputs((2, 5, D) if batch_first else (5, 2, D))
    out_t = theirs(x_t, src_mask=_masks(5, 5, torch)[mask])
    out_m = mine(x_m, src_mask=_masks(5, 5, minitorch)[mask])
    _compare(out_t, out_m, [x_t], [x_m], theirs.parameters(), mine.parameters())


def test_encoder_layer_with_a_key_padding_mask_in_train_mode():
    theirs, mine = _pair("TransformerEncoderLayer", D, H, FF, batch_first=True)
    (x_t,), (x_m,) = _inputs((3, 4, D))
    pad = [[False, False, False, True], [False, False, True, True], [False, False, False, False]]
    out_t = theirs(x_t, src_key_padding_mask=torch.tensor(pad))
    out_m = mine(x_m, src_key_padding_mask=minitorch.tensor(pad))
    _compare(out_t, out_m, [x_t], [x_m])


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_decoder_layer(norm_first, bias):
    theirs, mine = _pair("TransformerDecoderLayer", D, H, FF, norm_first=norm_first, bias=bias)
    (t_t, m_t), (t_m, m_m) = _inputs((4, 2, D), (6, 2, D))
    out_t = theirs(t_t, m_t, tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4), tgt_is_causal=True)
    out_m = mine(t_m, m_m, tgt_mask=minitorch.nn.Transformer.generate_square_subsequent_mask(4), tgt_is_causal=True)
    _compare(out_t, out_m, [t_t, m_t], [t_m, m_m], theirs.parameters(), mine.parameters())


def test_encoder_and_decoder_stacks_with_norms():
    torch.manual_seed(0)
    layer_t = torch.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, batch_first=True)
    enc_t = torch.nn.TransformerEncoder(layer_t, 3, norm=torch.nn.LayerNorm(D), enable_nested_tensor=False)
    enc_m = minitorch.nn.TransformerEncoder(minitorch.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0,
                                                                               batch_first=True), 3,
                                            norm=minitorch.nn.LayerNorm(D))
    enc_m.load_state_dict(enc_t.state_dict())
    (x_t,), (x_m,) = _inputs((2, 5, D))
    _compare(enc_t(x_t, mask=_masks(5, 5, torch)["causal float"]),
             enc_m(x_m, mask=_masks(5, 5, minitorch)["causal float"]), [x_t], [x_m])
    dec_t = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(D, H, FF, dropout=0.0), 2)
    dec_m = minitorch.nn.TransformerDecoder(minitorch.nn.TransformerDecoderLayer(D, H, FF, dropout=0.0), 2)
    dec_m.load_state_dict(dec_t.state_dict())
    (t_t, m_t), (t_m, m_m) = _inputs((3, 2, D), (5, 2, D), seed=4)
    _compare(dec_t(t_t, m_t), dec_m(t_m, m_m), [t_t, m_t], [t_m, m_m])


def test_a_stack_starts_from_copies_of_its_layer():
    layer = minitorch.nn.TransformerEncoderLayer(D, H, FF)
    stack = minitorch.nn.TransformerEncoder(layer, 2)
    w0, w1 = stack.layers[0].linear1.weight, stack.layers[1].linear1.weight
    assert w0 is not w1 and w0 is not layer.linear1.weight and minitorch.equal(w0, w1)


@pytest.mark.parametrize("batch_first", [False, True])
def test_the_whole_transformer(batch_first):
    kwargs = dict(d_model=D, nhead=H, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=FF,
                  batch_first=batch_first)
    theirs, mine = _pair("Transformer", **kwargs)
    theirs.train(), mine.train()
    shapes = [(2, 5, D), (2, 3, D)] if batch_first else [(5, 2, D), (3, 2, D)]
    (s_t, t_t), (s_m, t_m) = _inputs(*shapes)
    pad = [[False] * 4 + [True], [False] * 5]
    out_t = theirs(s_t, t_t, tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(3),
                   src_key_padding_mask=torch.tensor(pad), memory_key_padding_mask=torch.tensor(pad))
    out_m = mine(s_m, t_m, tgt_mask=minitorch.nn.Transformer.generate_square_subsequent_mask(3),
                 src_key_padding_mask=minitorch.tensor(pad), memory_key_padding_mask=minitorch.tensor(pad))
    _compare(out_t, out_m, [s_t, t_t], [s_m, t_m], theirs.parameters(), mine.parameters())


def test_transformer_init_is_xavier_uniform_on_every_matrix():
    model = minitorch.nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                     dim_feedforward=32)
    w = model.encoder.layers[0].linear1.weight
    bound = (6 / (16 + 32)) ** 0.5
    assert float(w.abs().max()) <= bound and float(w.abs().max()) > bound * 0.8


def test_square_subsequent_mask_matches_torch():
    mine = minitorch.nn.Transformer.generate_square_subsequent_mask(4)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


@pytest.mark.parametrize("lib", ["minitorch", "torch"])
def test_errors_as_torch(lib):
    mod = minitorch if lib == "minitorch" else torch
    model = mod.nn.Transformer(d_model=D, nhead=H, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=FF)
    with pytest.raises(RuntimeError, match="batch number"):
        model(mod.zeros(3, 2, D), mod.zeros(3, 4, D))
    with pytest.raises(RuntimeError, match="feature number"):
        model(mod.zeros(3, 2, D), mod.zeros(3, 2, D + 2))
    with pytest.raises(RuntimeError, match="relu/gelu"):
        mod.nn.TransformerEncoderLayer(D, H, activation="tanh")
    with pytest.raises((AssertionError, RuntimeError)):
        mod.nn.TransformerEncoderLayer(D, 3)  # embed_dim must be divisible by num_heads
