"""The Tensor surface of API.md: construction and dtypes, attributes, methods, factories,
views sharing memory, and PyTorch's type promotion. (No PyTorch needed here; the same
facts are cross-checked against PyTorch itself in ``test_vs_torch.py``.)"""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError


# ---------------------------------------------------------------------- construction and dtypes
@pytest.mark.parametrize(
    "data, dtype, shape",
    [
        ([1.0, 2.0], minitorch.float32, (2,)),  # Python floats: float32, as in PyTorch
        ([[1, 2.5]], minitorch.float32, (1, 2)),
        (2.5, minitorch.float32, ()),
        ([1, 2, 3], minitorch.int64, (3,)),
        (3, minitorch.int64, ()),
        ([True, False], minitorch.bool, (2,)),
        (np.array([1.0, 2.0]), minitorch.float64, (2,)),  # a NumPy array keeps its dtype
        (np.array([1.0], dtype=np.float32), minitorch.float32, (1,)),
        (np.array([[1, 2]], dtype=np.int64), minitorch.int64, (1, 2)),
        (np.float64(2.0), minitorch.float64, ()),
        (np.array([True]), minitorch.bool, (1,)),
    ],
)
def test_tensor_dtype_inference(data, dtype, shape):
    t = minitorch.tensor(data)
    assert t.dtype == dtype
    assert t.shape == shape
    assert isinstance(t, minitorch.Tensor)


def test_dtype_keyword_and_aliases():
    assert minitorch.tensor([1, 2], dtype=minitorch.float64).dtype == minitorch.float64
    assert minitorch.tensor([1.5], dtype="float64").dtype == minitorch.float64
    assert minitorch.tensor([1.5], dtype=np.float64).dtype == minitorch.float64
    assert minitorch.tensor([1.7], dtype=minitorch.int64).tolist() == [1]
    assert minitorch.float is minitorch.float32 and minitorch.double is minitorch.float64
    assert minitorch.long is minitorch.int64
    assert repr(minitorch.float32) == "minitorch.float32"


def test_tensor_copies_its_data():
    array = np.array([1.0, 2.0])
    t = minitorch.tensor(array)
    array[0] = 9.0
    assert t.tolist() == [1.0, 2.0]
    u = minitorch.tensor(t)
    t.data[1] = 7.0
    assert u.tolist() == [1.0, 2.0]


def test_tensor_from_a_list_of_tensors():
    t = minitorch.tensor([minitorch.tensor(1.0), minitorch.tensor(2.0)])
    assert t.shape == (2,) and t.tolist() == [1.0, 2.0]


def test_tensor_class_constructor():
    t = minitorch.Tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.dtype == minitorch.float32


# ---------------------------------------------------------------------- attributes
def test_attributes():
    t = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    assert isinstance(t.data, np.ndarray)
    assert t.shape == (2, 3) and isinstance(t.shape, tuple)
    assert t.ndim == 2
    assert t.dtype == minitorch.float32
    assert t.device == "cpu"
    assert t.requires_grad
    assert t.grad is None and t.grad_fn is None and t.is_leaf
    assert t.T.shape == (3, 2)
    assert t.T.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    y = t * 2
    assert not y.is_leaf and y.grad_fn is not None and y.requires_grad


# ---------------------------------------------------------------------- methods
def test_size_numel_dim():
    t = minitorch.zeros(2, 3, 4)
    assert t.size() == (2, 3, 4)
    assert t.size(1) == 3 and t.size(-1) == 4
    assert t.numel() == 24
    assert t.dim() == 3
    assert minitorch.tensor(5.0).numel() == 1 and minitorch.tensor(5.0).dim() == 0


def test_item_and_tolist():
    assert minitorch.tensor(2.5).item() == 2.5
    assert minitorch.tensor([[7]]).item() == 7
    assert isinstance(minitorch.tensor([3]).item(), int)
    assert isinstance(minitorch.tensor([3.0]).item(), float)
    assert minitorch.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert minitorch.tensor(1.5).tolist() == 1.5


def test_numpy_shares_memory_and_refuses_when_requiring_grad():
    t = minitorch.tensor([1.0, 2.0])
    array = t.numpy()
    array[0] = 5.0
    assert t.tolist() == [5.0, 2.0]
    w = minitorch.tensor([1.0], requires_grad=True)
    with pytest.raises(MiniTorchError, match="detach"):
        w.numpy()
    assert w.detach().numpy().tolist() == [1.0]


def test_numpy_refuses_a_cuda_tensor(monkeypatch):
    # Without a GPU: make the backend report this tensor's array as living on cuda.
    from minitorch import backends

    t = minitorch.tensor([1.0, 2.0])
    real_device_of = backends.device_of
    monkeypatch.setattr(backends, "device_of", lambda a: "cuda" if a is t.data else real_device_of(a))
    assert t.device == "cuda"
    with pytest.raises(MiniTorchError, match=r"numpy\(\).*cuda.*\.cpu\(\)"):
        t.numpy()


def test_np_asarray_of_a_tensor():
    t = minitorch.tensor([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(t), [1.0, 2.0])


def test_detach_and_clone():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert np.shares_memory(d.data, x.data) and not d.requires_grad
    c = x.clone()
    assert not np.shares_memory(c.data, x.data)
    assert c.requires_grad and c.grad_fn is not None  # clone stays in the graph
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_requires_grad_():
    t = minitorch.tensor([1.0])
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad_(False)
    assert not t.requires_grad
    y = minitorch.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(MiniTorchError, match="leaf"):
        y.requires_grad_(False)


def test_to_float_double_and_cpu():
    t = minitorch.tensor([1, 2])
    assert t.to(minitorch.float32).dtype == minitorch.float32
    assert t.to(dtype=minitorch.float64).dtype == minitorch.float64
    assert t.float().dtype == minitorch.float32
    assert t.double().dtype == minitorch.float64
    assert t.float().tolist() == [1.0, 2.0]
    assert t.to("cpu") is t and t.cpu() is t
    f = minitorch.tensor([1.5])
    assert f.float() is f  # already float32: no copy, no graph node
    assert minitorch.tensor([1.9, -1.9]).to(minitorch.int64).tolist() == [1, -1]
    assert minitorch.tensor([0.0, 2.0]).to(minitorch.bool).tolist() == [False, True]


def test_cast_is_differentiable():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x.double()
    assert y.dtype == minitorch.float64 and y.grad_fn is not None
    (y * y).sum().backward()
    assert x.grad.dtype == minitorch.float32
    assert x.grad.tolist() == [2.0, 4.0]


def test_contiguous_and_is_contiguous():
    t = minitorch.zeros(3, 4)
    assert t.is_contiguous() and t.contiguous() is t
    tt = t.T
    assert not tt.is_contiguous()
    c = tt.contiguous()
    assert c.is_contiguous() and c.shape == (4, 3)
    assert not np.shares_memory(c.data, t.data)


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.bool])
def test_stride_in_elements_like_pytorch(dtype):
    t = minitorch.zeros(2, 3, 4, dtype=dtype)
    assert t.stride() == (12, 4, 1)
    assert t.stride(0) == 12 and t.stride(-1) == 1
    assert t.transpose(0, 2).stride() == (1, 4, 12)
    assert t[:, ::2].stride() == (12, 8, 1)
    assert t[:, :1].expand(2, 5, 4).stride() == (12, 0, 1)
    assert t.unsqueeze(0).stride() == (24, 12, 4, 1)
    assert t[None].stride() == (24, 12, 4, 1)


# ---------------------------------------------------------------------- factories
@pytest.mark.parametrize("shape_args", [(2, 3), ((2, 3),), ([2, 3],)])
@pytest.mark.parametrize("factory", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_accept_varargs_or_a_tuple(factory, shape_args):
    t = getattr(minitorch, factory)(*shape_args)
    assert t.shape == (2, 3) and t.dtype == minitorch.float32 and not t.requires_grad


def test_factory_keywords():
    t = minitorch.zeros(2, dtype=minitorch.float64, requires_grad=True)
    assert t.dtype == minitorch.float64 and t.requires_grad and t.is_leaf
    assert minitorch.ones(3, device="cpu").device == "cpu"
    assert minitorch.randn(2, 2, dtype=minitorch.float64).dtype == minitorch.float64


def test_filled_factories_values():
    assert minitorch.zeros(2).tolist() == [0.0, 0.0]
    assert minitorch.ones(2, dtype=minitorch.int64).tolist() == [1, 1]
    assert minitorch.empty(3).shape == (3,)
    full = minitorch.full((2, 2), 7.5)
    assert full.tolist() == [[7.5, 7.5], [7.5, 7.5]] and full.dtype == minitorch.float32
    assert minitorch.full((2,), 3).dtype == minitorch.int64
    assert minitorch.full((2,), True).dtype == minitorch.bool


def test_like_factories():
    base = minitorch.tensor([[1, 2, 3]])
    assert minitorch.zeros_like(base).tolist() == [[0, 0, 0]] and minitorch.zeros_like(base).dtype == minitorch.int64
    assert minitorch.ones_like(base, dtype=minitorch.float64).dtype == minitorch.float64
    assert minitorch.full_like(base, 4).tolist() == [[4, 4, 4]]
    assert minitorch.ones_like(minitorch.zeros(2, 2), requires_grad=True).requires_grad


def test_random_factories_ranges():
    minitorch.manual_seed(0)
    u = minitorch.rand(1000)
    assert 0.0 <= u.amin().item() and u.amax().item() < 1.0
    n = minitorch.randn(10_000)
    assert abs(n.mean().item()) < 0.05 and abs(n.var().item() - 1) < 0.05
    r = minitorch.randint(2, 5, (1000,))
    assert r.dtype == minitorch.int64 and set(np.unique(r.numpy())) == {2, 3, 4}
    assert minitorch.randint(3, (4, 2)).shape == (4, 2)


def test_manual_seed_makes_random_factories_repeatable():
    def draw():
        return (minitorch.rand(3).tolist(), minitorch.randn(2, 2).tolist(), minitorch.randint(0, 100, (5,)).tolist())

    minitorch.manual_seed(123)
    first = draw()
    minitorch.manual_seed(123)
    assert draw() == first
    minitorch.manual_seed(124)
    assert draw() != first
    # The factories draw from the one generator manual_seed seeds (PyTorch's mt19937 stream;
    # tests/core/test_rng_parity.py compares the values with PyTorch's).
    minitorch.manual_seed(7)
    assert minitorch.random.default_generator() is minitorch.default_generator
    expected = minitorch.rand(3, generator=minitorch.Generator().manual_seed(7))
    np.testing.assert_array_equal(minitorch.rand(3).numpy(), expected.numpy())


def test_arange_linspace_eye():
    assert minitorch.arange(4).tolist() == [0, 1, 2, 3] and minitorch.arange(4).dtype == minitorch.int64
    assert minitorch.arange(1, 7, 2).tolist() == [1, 3, 5]
    a = minitorch.arange(0, 1, 0.25)
    assert a.dtype == minitorch.float32 and a.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert minitorch.arange(0.0, 1.0, 0.1).shape == (10,)
    lin = minitorch.linspace(0, 1, 5)
    assert lin.dtype == minitorch.float32 and lin.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    eye = minitorch.eye(3)
    assert eye.tolist() == [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]] and eye.dtype == minitorch.float32
    assert minitorch.eye(2, 3).shape == (2, 3)


def test_from_numpy_shares_memory():
    array = np.array([1.0, 2.0, 3.0])
    t = minitorch.from_numpy(array)
    assert t.dtype == minitorch.float64
    array[0] = 10.0
    assert t.tolist()[0] == 10.0
    t.data[1] = 20.0
    assert array[1] == 20.0
    with pytest.raises(TypeError, match="from_numpy"):
        minitorch.from_numpy([1.0, 2.0])


# ---------------------------------------------------------------------- views share memory
@pytest.mark.parametrize(
    "make_view",
    [
        pytest.param(lambda t: t.view(3, 4), id="view"),
        pytest.param(lambda t: t.view(-1), id="view-flat"),
        pytest.param(lambda t: t.reshape(4, 3), id="reshape-of-contiguous"),
        pytest.param(lambda t: t.transpose(0, 1), id="transpose"),
        pytest.param(lambda t: t.T, id="T"),
        pytest.param(lambda t: t.permute(1, 0), id="permute"),
        pytest.param(lambda t: t[:1].expand(5, 4), id="expand"),
        pytest.param(lambda t: t[1], id="int-index"),
        pytest.param(lambda t: t[:, ::2], id="step-slice"),
        pytest.param(lambda t: t[None, ..., 1:], id="none-ellipsis-slice"),
        pytest.param(lambda t: t.unsqueeze(0), id="unsqueeze"),
        pytest.param(lambda t: t.detach(), id="detach"),
    ],
)
def test_views_share_memory(make_view):
    t = minitorch.arange(12, dtype=minitorch.float32).reshape(3, 4)
    v = make_view(t)
    assert np.shares_memory(v.data, t.data)
    t.data[...] = -1.0  # a change through the base shows in the view
    assert (v.numpy() == -1.0).all()


@pytest.mark.parametrize(
    "make_copy",
    [
        pytest.param(lambda t: t.clone(), id="clone"),
        pytest.param(lambda t: t[[0, 2]], id="int-list-index"),
        pytest.param(lambda t: t[t > 3], id="bool-mask"),
        pytest.param(lambda t: t.double(), id="cast"),
        pytest.param(lambda t: t.T.reshape(12), id="reshape-of-transposed"),
    ],
)
def test_copies_do_not_share_memory(make_copy):
    t = minitorch.arange(12, dtype=minitorch.float32).reshape(3, 4)
    assert not np.shares_memory(make_copy(t).data, t.data)


# ---------------------------------------------------------------------- type promotion
@pytest.mark.parametrize(
    "make, dtype",
    [
        pytest.param(lambda: minitorch.tensor([1, 2]) + 2.5, minitorch.float32, id="int+float-scalar"),
        pytest.param(lambda: minitorch.tensor([1, 2]) * 2, minitorch.int64, id="int*int-scalar"),
        pytest.param(lambda: 2.5 * minitorch.tensor([1, 2]), minitorch.float32, id="float-scalar*int"),
        pytest.param(lambda: minitorch.tensor([1.0]) + minitorch.tensor([1.0], dtype=minitorch.float64),
                     minitorch.float64, id="float32+float64"),
        pytest.param(lambda: minitorch.tensor([1.0]) + minitorch.tensor(1.0, dtype=minitorch.float64),
                     minitorch.float32, id="float32+0d-float64"),
        pytest.param(lambda: minitorch.tensor(1.0) + minitorch.tensor([1.0], dtype=minitorch.float64),
                     minitorch.float64, id="0d-float32+float64"),
        pytest.param(lambda: minitorch.tensor([1, 2]) + minitorch.tensor(1.5), minitorch.float32,
                     id="int+0d-float32"),
        pytest.param(lambda: minitorch.tensor([1, 2]) / minitorch.tensor([2, 2]), minitorch.float32,
                     id="int/int"),
        pytest.param(lambda: minitorch.tensor([1, 2]) / 2, minitorch.float32, id="int/int-scalar"),
        pytest.param(lambda: minitorch.tensor([True]) + 1, minitorch.int64, id="bool+int-scalar"),
        pytest.param(lambda: minitorch.tensor([True]) + minitorch.tensor([2]), minitorch.int64, id="bool+int"),
        pytest.param(lambda: minitorch.tensor([1.0], dtype=minitorch.float64) * 3.0, minitorch.float64,
                     id="float64*float-scalar"),
        pytest.param(lambda: minitorch.tensor([1.0]) * np.float64(2.0), minitorch.float32, id="float32*np.float64"),
        pytest.param(lambda: np.sqrt(2.0) * minitorch.tensor([1.0]), minitorch.float32, id="np.float64*float32"),
        pytest.param(lambda: minitorch.tensor([1.0]) / np.int64(3), minitorch.float32, id="float32/np.int64"),
        pytest.param(lambda: minitorch.tensor([1]) * np.int64(3), minitorch.int64, id="int*np.int64"),
        pytest.param(lambda: minitorch.tensor([1.0]).clamp(np.float64(0.5)), minitorch.float32, id="clamp-np-bound"),
        pytest.param(lambda: minitorch.tensor([1, 2]) ** 2, minitorch.int64, id="int**int"),
        pytest.param(lambda: minitorch.tensor([1, 2]) ** 0.5, minitorch.float32, id="int**float"),
        pytest.param(lambda: minitorch.tensor([1, 2]).exp(), minitorch.float32, id="exp(int)"),
        pytest.param(lambda: minitorch.tensor([True, False]).sum(), minitorch.int64, id="sum(bool)"),
        pytest.param(lambda: minitorch.maximum(minitorch.tensor([1]), minitorch.tensor([0.5])), minitorch.float32,
                     id="maximum(int,float)"),
        pytest.param(lambda: minitorch.where(minitorch.tensor([True]), minitorch.tensor([1]), 0.5),
                     minitorch.float32, id="where(int,float-scalar)"),
    ],
)
def test_type_promotion_like_pytorch(make, dtype):
    assert make().dtype == dtype


def test_int_division_values():
    assert minitorch.tensor([1, 3]).div(minitorch.tensor([2, 2])).tolist() == [0.5, 1.5]
    assert (minitorch.tensor([7, -7]) // 2).tolist() == [3, -4]


@pytest.mark.parametrize("op", ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"])
def test_comparisons_give_bool_tensors_without_grad(op):
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = getattr(x * 1, op)(2.0)
    assert out.dtype == minitorch.bool and not out.requires_grad and out.grad_fn is None
    out = getattr(x, op)(minitorch.tensor([3.0, 2.0, 1.0]))
    assert out.dtype == minitorch.bool and out.shape == (3,)


def test_comparison_values_and_logic():
    x = minitorch.tensor([1, 2, 3])
    assert (x > 1).tolist() == [False, True, True]
    assert (x == minitorch.tensor([1, 0, 3])).tolist() == [True, False, True]
    assert ((x > 1) & (x < 3)).tolist() == [False, True, False]
    assert (~(x > 1)).tolist() == [True, False, False]
    assert (x > 1).any().item() and not (x > 5).any().item()


def test_scalar_operands_on_either_side():
    x = minitorch.tensor([2.0, 4.0])
    assert (1 + x).tolist() == [3.0, 5.0]
    assert (10 - x).tolist() == [8.0, 6.0]
    assert (8 / x).tolist() == [4.0, 2.0]
    assert (2**x).tolist() == [4.0, 16.0]
    assert (-x).tolist() == [-2.0, -4.0]
    assert abs(minitorch.tensor([-1.5])).tolist() == [1.5]
    assert (np.float32(2) * x).tolist() == [4.0, 8.0]


def test_ops_available_as_functions_and_methods():
    x = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    for name in ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "neg"]:
        np.testing.assert_allclose(getattr(minitorch, name)(x).numpy(), getattr(x, name)().numpy())
    np.testing.assert_allclose(minitorch.matmul(x, x).numpy(), x.matmul(x).numpy())
    np.testing.assert_allclose(minitorch.pow(x, 2).numpy(), x.pow(2).numpy())
    np.testing.assert_allclose(minitorch.clamp(x, 1.5, 3.5).numpy(), x.clamp(1.5, 3.5).numpy())
    np.testing.assert_allclose(minitorch.maximum(x, x.T).numpy(), x.maximum(x.T).numpy())


def test_repr():
    assert repr(minitorch.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(minitorch.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(minitorch.tensor(2.5, dtype=minitorch.float64)) == "tensor(2.5000, dtype=minitorch.float64)"
    assert repr(minitorch.tensor([1.0], requires_grad=True)) == "tensor([1.], requires_grad=True)"
    assert "grad_fn=<MulBackward>" in repr(minitorch.tensor([1.0], requires_grad=True) * 2)
