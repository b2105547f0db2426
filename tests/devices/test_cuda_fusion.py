"""``nn.Sequential`` fuses Linear -> ReLU into one ``BiasReLU`` kernel on a GPU, and only there.

Counted and checked with the fake CuPy (``fake_cupy.LAUNCHES``): the forward of
Linear -> ReLU -> Linear launches 4 kernels instead of 5 (matmul, matmul, one bias add,
one fused bias+ReLU), values and gradients match the unfused GPU path and the CPU, and
the CPU graph keeps its Linear and ReLU nodes (lessons draw it).
"""


import numpy as np
import pytest
from fake_cupy import LAUNCHES

import minitorch
from minitorch.nn.containers import fuses_linear_relu

nn = minitorch.nn


def mlp(*widths):
    """Linear -> ReLU -> ... -> Linear through ``widths``, seeded."""
    minitorch.manual_seed(0)
    layers = []
    for a, b in zip(widths[:-1], widths[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def forward_launches(model, x, custom=True):
    with minitorch.cuda.use_custom_kernels(custom):
        LAUNCHES.clear()
        model(x)
        return dict(LAUNCHES)


def node_names(out):
    """The names of every node in ``out``'s graph."""
    names, todo, seen = set(), [out.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(node.name())
        todo += [fn for fn, _ in node.next_functions]
    return names


@pytest.mark.parametrize(("widths", "fused", "plain"), [((20, 32, 10), 4, 5), ((20, 32, 16, 10), 6, 8)])
def test_each_linear_relu_pair_saves_one_launch(fake_gpu, widths, fused, plain):
    model = mlp(*widths).to("cuda")
    x = minitorch.randn(64, widths[0], device="cuda")
    pairs = len(widths) - 2
    counts = forward_launches(model, x)
    assert sum(counts.values()) == fused
    assert counts["minitorch_bias_relu_forward"] == pairs and counts["add"] == 1  # only the last Linear adds
    assert "minitorch_relu_forward" not in counts
    plain_counts = forward_launches(model, x, custom=False)  # kernels off: no fusion either
    assert sum(plain_counts.values()) == plain == fused + pairs
    assert "minitorch_bias_relu_forward" not in plain_counts


def _run(model, x_array, device, custom=True):
    """(output, grad of x, {name: grad}) of ``sum(model(x) * weights)`` on ``device``."""
    model.zero_grad()
    model.to(device)
    x = minitorch.tensor(x_array, device=device, requires_grad=True)
    with minitorch.cuda.use_custom_kernels(custom):
        out = model(x)
        w = minitorch.tensor(np.linspace(-1, 1, out.numel(), dtype=np.float32).reshape(out.shape), device=device)
        (out * w).sum().backward()
    grads = {name: p.grad.cpu().numpy() for name, p in model.named_parameters()}
    return out.detach().cpu().numpy(), x.grad.cpu().numpy(), grads


@pytest.mark.parametrize("shape", [(64, 20), (3, 5, 20)], ids=["2d", "3d"])
def test_fused_values_and_gradients_match_unfused_and_cpu(fake_gpu, rng, shape):
    model = mlp(20, 32, 16, 10)
    x = rng.standard_normal(shape).astype(np.float32)
    cpu = _run(model, x, "cpu")
    fused = _run(model, x, "cuda")
    plain = _run(model, x, "cuda", custom=False)
    for got in (fused, plain):
        np.testing.assert_allclose(got[0], cpu[0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], cpu[1], rtol=1e-5, atol=1e-6)
        assert got[2].keys() == cpu[2].keys()
        for name in cpu[2]:
            np.testing.assert_allclose(got[2][name], cpu[2][name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_fused_under_no_grad_matches(fake_gpu, rng, fast_kernels):
    model = mlp(20, 32, 10).to("cuda")
    x = minitorch.tensor(rng.standard_normal((8, 20)).astype(np.float32), device="cuda")
    with minitorch.no_grad():
        LAUNCHES.clear()
        out = model(x)
        assert LAUNCHES["minitorch_bias_relu_forward"] == 1
    assert out.grad_fn is None and not out.requires_grad
    with minitorch.cuda.use_custom_kernels(False):
        want = model(x)
    np.testing.assert_allclose(out.cpu().numpy(), want.detach().cpu().numpy(), rtol=1e-6)


def test_graph_names_cpu_keeps_linear_and_relu_gpu_has_bias_relu(fake_gpu, rng, fast_kernels):
    model = mlp(20, 32, 10)
    x = rng.standard_normal((4, 20)).astype(np.float32)
    cpu_names = node_names(model(minitorch.tensor(x)))
    assert {"LinearBackward", "ReLUBackward"} <= cpu_names and "BiasReLUBackward" not in cpu_names
    out = model(minitorch.tensor(x))
    relu_node = out.grad_fn.next_functions[0][0]  # the last Linear's input
    assert relu_node.name() == "ReLUBackward"
    assert relu_node.next_functions[0][0].name() == "LinearBackward"
    model.to("cuda")
    gpu_names = node_names(model(minitorch.tensor(x, device="cuda")))
    assert "BiasReLUBackward" in gpu_names and "ReLUBackward" not in gpu_names


class _MyLinear(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 2


@pytest.mark.parametrize(
    "change", ["forward replaced", "forward hook", "forward pre-hook", "subclass", "no bias", "custom kernels off"]
)
def test_what_turns_the_fusion_off(fake_gpu, rng, change):
    model = mlp(20, 32, 10)
    calls = []
    if change == "forward replaced":  # an instance's own forward intercepts the call
        relu = model[1]
        original = relu.forward
        relu.forward = lambda x: calls.append(x) or original(x)
    elif change == "forward hook":  # a hook must see the ReLU's own output
        model[1].register_forward_hook(lambda module, args, out: calls.append(out))
    elif change == "forward pre-hook":
        model[0].register_forward_pre_hook(lambda module, args: calls.append(args))
    elif change == "subclass":
        minitorch.manual_seed(0)
        model = nn.Sequential(_MyLinear(20, 32), nn.ReLU(), nn.Linear(32, 10))
    elif change == "no bias":
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(20, 32, bias=False), nn.ReLU(), nn.Linear(32, 10))
    x_array = rng.standard_normal((8, 20)).astype(np.float32)
    want = model(minitorch.tensor(x_array)).detach().numpy()
    model.to("cuda")
    x = minitorch.tensor(x_array, device="cuda")
    with minitorch.cuda.use_custom_kernels(change != "custom kernels off"):
        assert not fuses_linear_relu(model[0], model[1], x)
        LAUNCHES.clear()
        out = model(x)
    assert "minitorch_bias_relu_forward" not in LAUNCHES
    np.testing.assert_allclose(out.detach().cpu().numpy(), want, rtol=1e-5, atol=1e-6)
    if change in ("forward replaced", "forward hook", "forward pre-hook"):
        assert len(calls) == 2  # once on the CPU, once on the GPU


def test_a_wrong_width_still_gets_linears_own_error(fake_gpu):
    model = mlp(20, 32, 10).to("cuda")
    with pytest.raises(minitorch.errors.MiniTorchError, match=r"Linear\(in_features=20"):
        model(minitorch.randn(4, 7, device="cuda"))


def test_fusion_under_autocast_matches_the_unfused_path(fake_gpu, rng):
    model = mlp(20, 32, 10).to("cuda")
    x = minitorch.tensor(rng.standard_normal((8, 20)).astype(np.float32), device="cuda")
    results = []
    for custom in (True, False):
        model.zero_grad()
        with minitorch.cuda.use_custom_kernels(custom), minitorch.autocast("cuda"):
            LAUNCHES.clear()
            out = model(x)
            assert ("minitorch_bias_relu_forward" in LAUNCHES) == custom
            assert out.dtype == minitorch.float16
            out.float().sum().backward()
        results.append([out.detach().cpu().numpy()] + [p.grad.cpu().numpy() for p in model.parameters()])
    for fused, plain in zip(*results):
        assert fused.dtype == plain.dtype
        np.testing.assert_allclose(fused, plain, rtol=1e-3, atol=1e-3)
