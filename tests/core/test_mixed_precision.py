"""float16, autocast and GradScaler, against PyTorch."""

import math

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError
from minitorch.nn import functional as F

torch = pytest.importorskip("torch")


def test_float16_values_and_promotion():
    half = minitorch.tensor([1.0, 65504.0, 70000.0, 1e-7], dtype=minitorch.float16)
    theirs = torch.tensor([1.0, 65504.0, 70000.0, 1e-7], dtype=torch.float16)
    np.testing.assert_array_equal(half.data, theirs.numpy())
    assert math.isinf(half[2].item())  # beyond 65,504: overflow
    for make in (
        lambda lib, h: h + 1.5,
        lambda lib, h: h * lib.tensor([2.0]),
        lambda lib, h: lib.tensor([1, 2]) + h,
        lambda lib, h: h + lib.tensor(2.0, dtype=lib.float64),
        lambda lib, h: h.float(),
    ):
        mine = make(minitorch, minitorch.tensor([1.0, 2.0], dtype=minitorch.float16))
        ref = make(torch, torch.tensor([1.0, 2.0], dtype=torch.float16))
        assert mine.dtype.name == str(ref.dtype).replace("torch.", "")
        np.testing.assert_allclose(mine.data.astype(np.float64), ref.double().numpy())
    assert minitorch.ones(2).half().dtype == minitorch.float16 == minitorch.half
    assert "dtype=minitorch.float16" in repr(half)


def test_float16_sums_and_products_accumulate_in_float32():
    rng = np.random.default_rng(0)
    values = rng.standard_normal(5000).astype(np.float16)
    assert minitorch.tensor(values).sum().item() == torch.tensor(values).sum().item()
    assert minitorch.ones(10000, dtype=minitorch.float16).sum().item() == 10000.0
    a, b = rng.standard_normal((64, 128)).astype(np.float16), rng.standard_normal((128, 32)).astype(np.float16)
    mine, theirs = (minitorch.tensor(a) @ minitorch.tensor(b)).data, (torch.tensor(a) @ torch.tensor(b)).numpy()
    np.testing.assert_allclose(mine, theirs, rtol=2e-3)  # within a rounding step of float16
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(mine - exact).max() <= np.abs(theirs - exact).max() * 1.01


def test_float16_backward_matches_float32_loosely():
    rng = np.random.default_rng(1)
    x32 = minitorch.tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
    x16 = minitorch.tensor(x32.data.astype(np.float16), requires_grad=True)
    for x in (x32, x16):
        (x.tanh() * x).sum().backward()
    assert x16.grad.dtype == minitorch.float16
    np.testing.assert_allclose(x16.grad.data.astype(np.float32), x32.grad.data, rtol=2e-2, atol=2e-3)


def test_autocast_dtypes_match_pytorch_where_its_lists_agree():
    a, w = np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)
    img, k = np.ones((1, 1, 5, 5), np.float32), np.ones((2, 1, 3, 3), np.float32)
    cases = {
        "matmul": lambda lib, f: lib.tensor(a) @ lib.tensor(w).T,
        "linear": lambda lib, f: f.linear(lib.tensor(a), lib.tensor(w)),
        "conv2d": lambda lib, f: f.conv2d(lib.tensor(img), lib.tensor(k)),
        "mse_loss": lambda lib, f: f.mse_loss(lib.tensor(a), lib.tensor(a)),
        "mul": lambda lib, f: lib.tensor(a) * 2,
    }
    for name, run in cases.items():
        with minitorch.autocast("cpu"):
            mine = run(minitorch, F)
        with torch.autocast("cpu", dtype=torch.float16):
            theirs = run(torch, torch.nn.functional)
        assert mine.dtype.name == str(theirs.dtype).replace("torch.", ""), name


def test_autocast_float32_list_and_scope():
    x = minitorch.randn(2, 4)
    with minitorch.autocast("cpu"):
        h = x @ minitorch.randn(4, 4)
        assert h.dtype == minitorch.float16
        for out in (F.softmax(h, 1), F.log_softmax(h, 1), h.sum(), h.mean(), h.exp(), h.log1p()):
            assert out.dtype == minitorch.float32
        with minitorch.autocast("cpu", enabled=False):
            assert (x @ x.T).dtype == minitorch.float32
        assert minitorch.amp.is_autocast_enabled("cpu")
    assert (x @ x.T).dtype == minitorch.float32
    assert not minitorch.amp.is_autocast_enabled()
    with minitorch.autocast("cuda"):  # only cuda tensors are affected
        assert (x @ x.T).dtype == minitorch.float32


def test_autocast_keeps_float32_master_weights():
    model = minitorch.nn.Linear(3, 2)
    with minitorch.autocast("cpu"):
        loss = F.cross_entropy(model(minitorch.randn(4, 3)), minitorch.tensor([0, 1, 1, 0]))
    assert loss.dtype == minitorch.float32
    loss.backward()
    assert model.weight.grad.dtype == minitorch.float32 and model.weight.dtype == minitorch.float32


@pytest.mark.parametrize("seed", range(5))
def test_grad_scaler_sequence_matches_pytorch(seed):
    rng = np.random.default_rng(seed)
    choices, weights = [1.0, 2.0, -3.0, np.inf, np.nan, 1e-3], [0.3, 0.2, 0.2, 0.1, 0.1, 0.1]
    factors = [float(f) for f in rng.choice(choices, size=30, p=weights)]
    runs = []
    for lib in (minitorch, torch):
        scaler = lib.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=3)
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = lib.optim.SGD([p], lr=0.01, momentum=0.9)
        seen = []
        for f in factors:
            opt.zero_grad()
            scaler.scale((p * p * f).sum()).backward()
            scaler.step(opt)
            scaler.update()
            seen.append((scaler.get_scale(), p.detach().numpy().copy()))
        runs.append((seen, scaler.state_dict()))
    (mine, mine_state), (theirs, theirs_state) = runs
    for (s1, p1), (s2, p2) in zip(mine, theirs):
        assert s1 == s2
        np.testing.assert_allclose(p1, p2, rtol=1e-6)
    assert {k: float(v) for k, v in mine_state.items()} == {k: float(v) for k, v in theirs_state.items()}


def test_grad_scaler_errors_and_state():
    p = minitorch.nn.Parameter(minitorch.ones(2))
    opt = minitorch.optim.SGD([p], lr=0.1)
    scaler = minitorch.amp.GradScaler("cpu")
    scaler.scale(p.sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(MiniTorchError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(MiniTorchError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update()
    other = minitorch.amp.GradScaler("cpu", init_scale=1.0)
    other.load_state_dict(scaler.state_dict())
    assert other.get_scale() == scaler.get_scale()
    with pytest.raises(ValueError, match="growth factor"):
        minitorch.amp.GradScaler("cpu", growth_factor=1.0)
    half = minitorch.nn.Parameter(minitorch.ones(2).half())
    opt16 = minitorch.optim.SGD([half], lr=0.1)
    scaler.scale(half.sum()).backward()
    with pytest.raises(MiniTorchError, match="float16 gradients"):
        scaler.step(opt16)


def test_grad_scaler_disabled_is_a_pass_through():
    scaler = minitorch.amp.GradScaler("cpu", enabled=False)
    loss = minitorch.tensor(2.0, requires_grad=True) * 1
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
