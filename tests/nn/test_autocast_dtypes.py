"""Dtypes at the edges of mixed precision, as PyTorch gives them.

- Under autocast, float64 inputs of the low-precision ops (matmul, linear, conv) are left
  in float64: PyTorch casts only float32/float16 tensors.
- erf and GELU of float16 stay float16 (SciPy's erf would return float64).
- ``minitorch.is_autocast_enabled`` exists at the top level, as ``torch.is_autocast_enabled``.
"""

import numpy as np
import pytest

import minitorch
from minitorch.nn import functional as F


@pytest.mark.parametrize(
    "op",
    [
        lambda a, w: a @ w,
        lambda a, w: F.linear(a, w),
        lambda a, w: F.conv2d(a.reshape(1, 1, 4, 4), w.reshape(1, 1, 4, 4)),
    ],
    ids=["matmul", "linear", "conv2d"],
)
def test_float64_inputs_are_left_alone_under_autocast(op):
    a = minitorch.randn(4, 4, dtype=minitorch.float64)
    w = minitorch.randn(4, 4, dtype=minitorch.float64)
    with minitorch.autocast("cpu", dtype=minitorch.float16):
        assert op(a, w).dtype == minitorch.float64
        assert op(a.float(), w.float()).dtype == minitorch.float16  # float32 is still cast


@pytest.mark.parametrize(
    "fn", [minitorch.erf, F.gelu, lambda x: F.gelu(x, approximate="tanh")], ids=["erf", "gelu", "gelu_tanh"]
)
def test_erf_and_gelu_keep_float16(fn):
    x = minitorch.tensor(np.linspace(-3, 3, 7).astype(np.float16), requires_grad=True)
    y = fn(x)
    assert y.dtype == minitorch.float16
    y.sum().backward()
    assert x.grad.dtype == minitorch.float16
    want = fn(x.detach().double())
    np.testing.assert_allclose(y.detach().double().numpy(), want.numpy(), atol=2e-3)


def test_is_autocast_enabled_at_the_top_level():
    assert minitorch.is_autocast_enabled() is False
    with minitorch.autocast("cpu"):
        assert minitorch.is_autocast_enabled() is True
        assert minitorch.is_autocast_enabled("cpu") is True
        assert minitorch.is_autocast_enabled("cuda") is False
    assert minitorch.is_autocast_enabled() is False


def test_against_torch_where_installed():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((3, 3))
    with torch.autocast("cpu", dtype=torch.float16):
        want = (torch.tensor(a) @ torch.tensor(a)).dtype
    with minitorch.autocast("cpu", dtype=minitorch.float16):
        got = (minitorch.tensor(a) @ minitorch.tensor(a)).dtype
    assert str(got).split(".")[-1] == str(want).split(".")[-1] == "float64"
    h = np.linspace(-2, 2, 5).astype(np.float16)
    assert str(torch.special.erf(torch.tensor(h)).dtype).endswith("float16")


@pytest.mark.parametrize("mask", [None, "bool", "float", "causal"])
def test_attention_runs_in_float16_under_autocast_as_torch(mask):
    # On PyTorch's CUDA autocast list (and its CPU one) scaled_dot_product_attention is float16.
    q = np.random.default_rng(0).random((2, 3, 4)).astype(np.float32)
    kwargs = {"is_causal": True} if mask == "causal" else {}
    if mask == "bool":
        kwargs["attn_mask"] = minitorch.tensor(np.tril(np.ones((3, 3), dtype=bool)))
    elif mask == "float":
        kwargs["attn_mask"] = minitorch.zeros(3, 3)
    x = minitorch.tensor(q, requires_grad=True)
    with minitorch.autocast("cpu", dtype=minitorch.float16):
        out = F.scaled_dot_product_attention(x, x, x, **kwargs)
        mha = minitorch.nn.MultiheadAttention(4, 2, batch_first=True)(x, x, x)[0]
    assert out.dtype == minitorch.float16 and mha.dtype == minitorch.float16
    out.float().sum().backward()
    assert x.grad.dtype == minitorch.float32  # the gradient comes back in the leaf's dtype
    torch = pytest.importorskip("torch")
    xt = torch.tensor(q)
    torch_kwargs = {k: torch.tensor(v.numpy()) if isinstance(v, minitorch.Tensor) else v for k, v in kwargs.items()}
    with torch.autocast("cpu", dtype=torch.float16):
        expected = torch.nn.functional.scaled_dot_product_attention(xt, xt, xt, **torch_kwargs)
    assert expected.dtype == torch.float16
    np.testing.assert_allclose(out.detach().numpy(), expected.numpy(), atol=2e-3)
