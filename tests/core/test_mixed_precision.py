"""float16, autocast and GradScaler, against PyTorch."""

import ast
import math
from pathlib import Path

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
        # PyTorch's CPU lists keep these in float16 (its CUDA lists run them in float32) ...
        for out in (F.softmax(h, 1), F.log_softmax(h, 1), h.sum(), h.mean(), h.exp(), h.log1p()):
            assert out.dtype == minitorch.float16
        # ... and run the losses in float32 on both devices
        assert F.mse_loss(h, h).dtype == minitorch.float32
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


# ---------------------------------------------------------------------- autocast: PyTorch's lists, per device
def _autocast_cases():
    """One call per op on PyTorch's autocast lists that MiniTorch has (and two on neither list)."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((4, 6)).astype(np.float32)
    w, v = rng.standard_normal((6, 6)).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    img, k = rng.standard_normal((1, 2, 5, 5)).astype(np.float32), rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    probs = rng.uniform(0.1, 0.9, (4, 6)).astype(np.float32)
    labels = [0, 1, 2, 3]

    def t(lib, a, half):
        out = lib.tensor(a)
        return out.half() if half else out

    return {
        "matmul": lambda lib, F, h: t(lib, x, h) @ t(lib, w, h),
        "mm": lambda lib, F, h: lib.mm(t(lib, x, h), t(lib, w, h)),
        "bmm": lambda lib, F, h: lib.bmm(t(lib, x, h)[None], t(lib, w, h)[None]),
        "mv": lambda lib, F, h: lib.mv(t(lib, w, h), t(lib, v, h)),
        "addmm": lambda lib, F, h: lib.addmm(t(lib, x, h), t(lib, x, h), t(lib, w, h)),
        "linear": lambda lib, F, h: F.linear(t(lib, x, h), t(lib, w, h), t(lib, v, h)),
        "conv2d": lambda lib, F, h: F.conv2d(t(lib, img, h), t(lib, k, h)),
        "scaled_dot_product_attention": lambda lib, F, h: F.scaled_dot_product_attention(
            t(lib, x, h)[None], t(lib, y, h)[None], t(lib, y, h)[None]
        ),
        "exp": lambda lib, F, h: t(lib, x, h).exp(),
        "expm1": lambda lib, F, h: t(lib, x, h).expm1(),
        "log": lambda lib, F, h: t(lib, probs, h).log(),
        "log2": lambda lib, F, h: t(lib, probs, h).log2(),
        "log10": lambda lib, F, h: t(lib, probs, h).log10(),
        "log1p": lambda lib, F, h: t(lib, probs, h).log1p(),
        "reciprocal": lambda lib, F, h: t(lib, probs, h).reciprocal(),
        "rsqrt": lambda lib, F, h: t(lib, probs, h).rsqrt(),
        "tan": lambda lib, F, h: t(lib, probs, h).tan(),
        "pow": lambda lib, F, h: t(lib, probs, h).pow(2.0),
        "softmax": lambda lib, F, h: F.softmax(t(lib, x, h), 1),
        "log_softmax": lambda lib, F, h: F.log_softmax(t(lib, x, h), 1),
        "softmin": lambda lib, F, h: F.softmin(t(lib, x, h), 1),
        "softplus": lambda lib, F, h: F.softplus(t(lib, x, h)),
        "layer_norm": lambda lib, F, h: F.layer_norm(t(lib, x, h), (6,), lib.ones(6), lib.zeros(6)),
        "norm": lambda lib, F, h: t(lib, x, h).norm(),
        "sum": lambda lib, F, h: t(lib, x, h).sum(),
        "prod": lambda lib, F, h: t(lib, probs, h).prod(),
        "trace": lambda lib, F, h: t(lib, w, h).trace(),
        "cumsum": lambda lib, F, h: t(lib, x, h).cumsum(0),
        "cumprod": lambda lib, F, h: t(lib, probs, h).cumprod(0),
        "logsumexp": lambda lib, F, h: t(lib, x, h).logsumexp(1),
        "mse_loss": lambda lib, F, h: F.mse_loss(t(lib, x, h), t(lib, y, h)),
        "l1_loss": lambda lib, F, h: F.l1_loss(t(lib, x, h), t(lib, y, h)),
        "smooth_l1_loss": lambda lib, F, h: F.smooth_l1_loss(t(lib, x, h), t(lib, y, h)),
        "huber_loss": lambda lib, F, h: F.huber_loss(t(lib, x, h), t(lib, y, h)),
        "nll_loss": lambda lib, F, h: F.nll_loss(t(lib, x, h), lib.tensor(labels)),
        "cross_entropy": lambda lib, F, h: F.cross_entropy(t(lib, x, h), lib.tensor(labels)),
        "binary_cross_entropy": lambda lib, F, h: F.binary_cross_entropy(t(lib, probs, h), t(lib, probs, h)),
        "binary_cross_entropy_with_logits": lambda lib, F, h: F.binary_cross_entropy_with_logits(
            t(lib, x, h), t(lib, probs, h)
        ),
        # on neither list: they run in their inputs' dtype on both devices
        "mean": lambda lib, F, h: t(lib, x, h).mean(),
        "batch_norm": lambda lib, F, h: F.batch_norm(t(lib, x, h), None, None, lib.ones(6), lib.zeros(6), True),
    }


AUTOCAST_CASES = _autocast_cases()


def _has_op(name):
    return any(hasattr(where, name) for where in (minitorch, minitorch.Tensor, F))


def test_every_listed_op_minitorch_has_is_checked():
    from minitorch.functions.autocast_policy import FLOAT32_OPS, LOWER_PRECISION_OPS

    listed = set().union(*LOWER_PRECISION_OPS.values(), *FLOAT32_OPS.values())
    assert {name for name in listed if _has_op(name)} <= set(AUTOCAST_CASES)


@pytest.mark.parametrize("half_inputs", [False, True], ids=["float32-inputs", "float16-inputs"])
@pytest.mark.parametrize("op", sorted(AUTOCAST_CASES))
def test_cpu_autocast_dtype_matches_pytorch(op, half_inputs):
    run = AUTOCAST_CASES[op]
    with minitorch.autocast("cpu"):
        mine = run(minitorch, F, half_inputs)
    with torch.autocast("cpu", dtype=torch.float16):
        theirs = run(torch, torch.nn.functional, half_inputs)
    assert mine.dtype.name == str(theirs.dtype).replace("torch.", ""), op


def _pytorch_autocast_test_lists():
    """{class name: {list name: [op names]}}, read from the test lists shipped with torch.

    The file is parsed, not imported: importing it needs torch's test-only dependencies.
    """
    path = Path(torch.__file__).parent / "testing" / "_internal" / "autocast_test_lists.py"
    if not path.exists():
        pytest.skip("this torch has no autocast_test_lists.py")
    lists: dict = {}
    for cls in ast.parse(path.read_text()).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for node in ast.walk(cls):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
                target = node.targets[0]
                names = [
                    e.elts[0].value
                    for e in node.value.elts
                    if isinstance(e, ast.Tuple) and isinstance(e.elts[0], ast.Constant)
                ]
                if isinstance(target, ast.Attribute) and names:
                    lists.setdefault(cls.name, {})[target.attr] = names
    return lists


def test_autocast_tables_hold_pytorchs_lists_for_each_device():
    """PyTorch's own test lists (shipped with torch) name the ops per device: ours must agree."""
    from minitorch.functions.autocast_policy import autocast_rule

    lists = _pytorch_autocast_test_lists()
    cuda, cpu = lists["AutocastTestLists"], lists["AutocastCPUTestLists"]
    expected = {
        "cuda": {"lower": cuda["torch_fp16"] + cuda["nn_fp16"] + cuda["linalg_fp16"],
                 "float32": cuda["torch_fp32"] + cuda["nn_fp32"]},
        "cpu": {"lower": cpu["torch_16"] + cpu["nn_16"], "float32": cpu["torch_fp32"] + cpu["nn_fp32"]},
    }  # fmt: skip
    private = {"_convolution", "cudnn_convolution", "cudnn_convolution_transpose", "convolution",
               "_addmm_activation"}  # fmt: skip  (internal ATen names MiniTorch has no use for)
    for device, rules in expected.items():
        for rule, entries in rules.items():
            for name in set(entries) - private:
                assert autocast_rule(device, name) == rule, (device, name)
    # and an op on one device's list only is on neither of the other's (sum: float32 on CUDA only)
    assert autocast_rule("cpu", "sum") is None and autocast_rule("cpu", "layer_norm") is None
    assert autocast_rule("cuda", "batch_norm") is None and autocast_rule("cpu", "batch_norm") is None


def test_autocast_cuda_refuses_binary_cross_entropy_as_pytorch():
    from minitorch.functions.autocast_policy import autocast_inputs

    p = minitorch.tensor([0.5])
    with minitorch.autocast("cuda"):
        with pytest.raises(MiniTorchError, match="binary_cross_entropy_with_logits"):
            autocast_inputs("binary_cross_entropy", p, p)


def test_sum_of_a_matmul_under_cpu_autocast_is_float16_as_in_pytorch():
    a, w = np.ones((2, 3), np.float32), np.ones((3, 3), np.float32)
    with minitorch.autocast("cpu"):
        mine = (minitorch.tensor(a) @ minitorch.tensor(w)).sum()
    with torch.autocast("cpu", dtype=torch.float16):
        theirs = (torch.tensor(a) @ torch.tensor(w)).sum()
    assert mine.dtype == minitorch.float16 and theirs.dtype == torch.float16


def test_grad_scaler_step_update_unscale_without_scale_raise_as_pytorch():
    for method in ("step", "unscale_", "update"):
        for lib in (minitorch, torch):
            p = lib.nn.Parameter(lib.ones(2))
            opt = lib.optim.SGD([p], lr=0.1)
            scaler = lib.amp.GradScaler("cpu")
            p.sum().backward()
            with pytest.raises(AssertionError, match="scale"):
                scaler.update() if method == "update" else getattr(scaler, method)(opt)
            assert p.detach().numpy().tolist() == [1.0, 1.0]  # no step with unscaled gradients


class _OnFakeGpu:
    """``minitorch`` with tensors made on the (fake) GPU: the cases above, on "cuda"."""

    def __getattr__(self, name):
        return getattr(minitorch, name)

    def tensor(self, data):
        return minitorch.tensor(data, device="cuda")

    def ones(self, *shape):
        return minitorch.ones(*shape, device="cuda")

    def zeros(self, *shape):
        return minitorch.zeros(*shape, device="cuda")


@pytest.fixture
def fake_gpu(monkeypatch):
    """The device tests' fake CuPy as ``cupy``: CUDA autocast runs on the CPU's arrays."""

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "devices"))
    import fake_cupy
    from fake_cupy import FakeCupy

    from minitorch import backends

    fake_cupy.install(monkeypatch, FakeCupy())
    backends.reset_probes()
    assert minitorch.cuda.is_available()
    yield
    backends.reset_probes()


@pytest.mark.parametrize("op", sorted(set(AUTOCAST_CASES) - {"binary_cross_entropy"}))  # refused on CUDA
def test_cuda_autocast_follows_pytorchs_cuda_lists_on_a_fake_gpu(fake_gpu, op):
    """Each op's dtype on "cuda" tensors: float16 / float32 as PyTorch's CUDA lists say, else its inputs'."""
    from minitorch.functions.autocast_policy import autocast_rule

    lists = _pytorch_autocast_test_lists()["AutocastTestLists"]
    named = {n: "lower" for key in ("torch_fp16", "nn_fp16", "linalg_fp16") for n in lists[key]}
    named.update({n: "float32" for key in ("torch_fp32", "nn_fp32") for n in lists[key]})
    rule = named.get(op, autocast_rule("cuda", op))  # ops PyTorch's test lists leave out: its AMP docs
    lib = _OnFakeGpu()
    for half in (False, True):
        natural = AUTOCAST_CASES[op](lib, F, half).dtype.name
        with minitorch.autocast("cuda"):
            got = AUTOCAST_CASES[op](lib, F, half)
        expected = {"lower": "float16", "float32": "float32", None: natural}[rule]
        assert got.device == "cuda" and got.dtype.name == expected, (op, half, rule)
