"""masked_fill with a mask that broadcasts both ways and scatter(..., reduce=), against PyTorch 2.13."""

import warnings

import numpy as np
import pytest

import minitorch
from minitorch.autograd.gradcheck import gradcheck

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(
    "x_shape, mask_shape",
    [((3, 4), (4,)), ((1, 4), (3, 1)), ((4,), (3, 4)), ((2, 1, 3), (4, 1)), ((), (2, 2))],
)
def test_masked_fill_broadcasts_x_and_mask_together_as_pytorch(rng, x_shape, mask_shape):
    x = rng.standard_normal(x_shape)
    mask = rng.random(mask_shape) < 0.5
    upstream = rng.standard_normal(np.broadcast_shapes(x_shape, mask_shape))
    results = {}
    for lib in (minitorch, torch):
        xt = lib.tensor(x, requires_grad=True)
        out = xt.masked_fill(lib.tensor(mask), -2.5)
        out.backward(lib.tensor(upstream))
        results[lib.__name__[:2]] = (tuple(out.shape), out.detach().numpy(), xt.grad.numpy())
    assert results["mi"][0] == results["to"][0]
    np.testing.assert_allclose(results["mi"][1], results["to"][1])
    np.testing.assert_allclose(results["mi"][2], results["to"][2])


def test_masked_fill_broadcast_gradchecks_in_float64_with_a_tensor_value(rng):
    mask = minitorch.tensor(rng.random((3, 1)) < 0.5)
    x = minitorch.tensor(rng.standard_normal((1, 4)), requires_grad=True)
    value = minitorch.tensor(0.7, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda a, v: a.masked_fill(mask, v), (x, value))
    th_v = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    torch.tensor(x.detach().numpy()).masked_fill(torch.tensor(mask.numpy()), th_v).sum().backward()
    x.masked_fill(mask, value).sum().backward()
    assert value.grad.item() == pytest.approx(th_v.grad.item())


def test_masked_fill_in_place_needs_a_mask_that_fits_and_shapes_that_clash_are_refused():
    with pytest.raises(RuntimeError):
        torch.zeros(4).masked_fill_(torch.ones(3, 4, dtype=torch.bool), 1.0)
    with pytest.raises(RuntimeError, match=r"masked_fill_.*\(4,\).*\(3, 4\)"):
        minitorch.zeros(4).masked_fill_(minitorch.ones(3, 4, dtype=minitorch.bool), 1.0)
    with pytest.raises(RuntimeError):
        torch.zeros(3).masked_fill(torch.ones(4, dtype=torch.bool), 1.0)
    with pytest.raises(RuntimeError, match=r"masked_fill.*\(3,\) and \(4,\)"):
        minitorch.zeros(3).masked_fill(minitorch.ones(4, dtype=minitorch.bool), 1.0)


SCATTER_CASES = [
    # (input, dim, index, src or a number)
    (np.zeros((2, 3)), 1, [[0, 1, 0], [1, 0, 1]], np.arange(1.0, 7.0).reshape(2, 3)),
    (np.ones((3, 4)), 0, [[0, 1, 2, 0], [0, 0, 0, 0]], np.arange(1.0, 13.0).reshape(3, 4)),  # src larger
    (np.full((2, 3), 2.0), 1, [[2, 2], [0, 0]], 3.0),
    (np.arange(5.0), 0, [4, 4, 0], np.array([2.0, 3.0, 5.0])),
    (np.arange(6, dtype=np.int64).reshape(2, 3), -1, [[0, 0]], np.array([[7, 8]])),
]


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("case", range(len(SCATTER_CASES)))
def test_scatter_reduce_values_as_pytorch(reduce, case):
    base, dim, index, src = SCATTER_CASES[case]
    out = {}
    for lib in (minitorch, torch):
        given = lib.tensor(src) if isinstance(src, np.ndarray) else src
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch: "the reduce argument ... is deprecated"
            out[lib.__name__] = lib.tensor(base).scatter(dim, lib.tensor(index), given, reduce=reduce)
    assert out["minitorch"].dtype.name == str(out["torch"].dtype).split(".")[1]
    np.testing.assert_array_equal(out["minitorch"].numpy(), out["torch"].numpy())


@pytest.mark.parametrize("src", [None, 2.0])
def test_scatter_reduce_has_no_derivative_as_in_pytorch(src):
    index = [[0, 1, 0]]
    results = []
    for lib in (torch, minitorch):
        a = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        given = lib.ones(1, 3, dtype=lib.float64, requires_grad=True) if src is None else src
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = a.scatter(1, lib.tensor(index), given, reduce="add")
        results.append(out.detach().numpy())
        with pytest.raises(RuntimeError) as info:
            out.sum().backward()
        if lib is minitorch:
            assert "reduce='add'" in str(info.value) and "not implemented" in str(info.value)
    np.testing.assert_array_equal(*results)


def test_scatter_with_an_unknown_reduce_is_refused_naming_it():
    with pytest.raises(RuntimeError, match="add or multiply"):
        torch.zeros(3).scatter(0, torch.tensor([0]), 1.0, reduce="sum")
    with pytest.raises(RuntimeError, match=r"'add' or 'multiply', got 'sum'"):
        minitorch.zeros(3).scatter(0, minitorch.tensor([0]), 1.0, reduce="sum")
