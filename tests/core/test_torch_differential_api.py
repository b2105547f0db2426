"""Differential tests against PyTorch of the API around the ops: GradScaler, losses, optimizers, data, factories.

Each test pins a discrepancy that differential fuzzing found (MiniTorch and PyTorch run the
same calls and must give the same numbers, or both raise).
"""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


# ---------------------------------------------------------------------- GradScaler
def _scaler_run(lib, factors, **kwargs):
    """Scales, skips and parameters of a GradScaler training loop where gradient ``i`` is scaled by ``factors[i]``."""
    scaler = lib.amp.GradScaler("cpu", **kwargs)
    p = lib.tensor([1.0, -2.0], requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.01)
    seen = []
    for f in factors:
        opt.zero_grad()
        scaler.scale((p * p * f).sum()).backward()
        scaler.step(opt)
        scaler.update()
        seen.append(scaler.get_scale())
    return seen, p.detach().numpy().copy(), scaler.state_dict()


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(init_scale=1000.0, growth_factor=1.7, backoff_factor=0.3, growth_interval=2),
        dict(init_scale=2.0**124, growth_factor=4.0, growth_interval=1),  # grows to float32's limit, no further
    ],
)
def test_grad_scaler_scale_is_a_float32_number_as_torch(kwargs):
    factors = [1.0, np.inf, 1.0, 1.0, np.nan, 1.0, 1.0, 1.0, 1.0, 1.0]
    mine, theirs = _scaler_run(minitorch, factors, **kwargs), _scaler_run(torch, factors, **kwargs)
    assert mine[0] == theirs[0]  # exactly: 1000 * 0.3 is 300.0000119..., as float32
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-6)
    assert mine[2] == theirs[2]


def test_grad_scaler_state_before_the_first_scale_keeps_init_scale_as_given():
    for lib in (minitorch, torch):
        assert lib.amp.GradScaler("cpu", init_scale=3.3).state_dict()["scale"] == 3.3


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_grad_scaler_scales_a_0d_loss_as_a_0d_float32_tensor(dtype):
    # A float16 loss times 65536 would overflow: PyTorch's 0-d float32 scale promotes it.
    results = []
    for lib in (minitorch, torch):
        loss = lib.tensor(3.0, dtype=getattr(lib, dtype))
        scaled = lib.amp.GradScaler("cpu").scale(loss)
        results.append((str(scaled.dtype).split(".")[-1], scaled.item()))
    assert results[0] == results[1]
    vector = minitorch.amp.GradScaler("cpu", init_scale=4.0).scale(minitorch.ones(2, dtype=minitorch.float16))
    assert vector.dtype == minitorch.float16  # a tensor with dims keeps its dtype, as in PyTorch


def test_grad_scaler_misuse_raises_assertion_errors_as_torch():
    p = minitorch.ones(2, requires_grad=True)
    opt = minitorch.optim.SGD([p], lr=0.1)
    scaler = minitorch.amp.GradScaler("cpu")
    scaler.scale(p.sum())  # no backward: no gradient to check
    with pytest.raises(AssertionError, match="No inf checks"):
        scaler.step(opt)
    with pytest.raises(AssertionError, match="no inf checks"):
        minitorch.amp.GradScaler("cpu").update()
    for kwargs in (dict(growth_factor=0.5), dict(backoff_factor=1.5)):
        with pytest.raises(AssertionError, match="factor"):
            minitorch.amp.GradScaler("cpu", **kwargs)
        with pytest.raises(AssertionError):
            torch.amp.GradScaler("cpu", **kwargs)
    half = minitorch.ones(2, dtype=minitorch.float16, requires_grad=True)
    scaler = minitorch.amp.GradScaler("cpu")
    scaler.scale(half.float().sum()).backward()
    with pytest.raises(ValueError, match="float16 gradients"):  # PyTorch: ValueError too
        scaler.unscale_(minitorch.optim.SGD([half], lr=0.1))


# ---------------------------------------------------------------------- losses
def test_binary_cross_entropy_refuses_targets_outside_0_1_as_torch():
    for lib in (minitorch, torch):
        with pytest.raises(RuntimeError, match="target should be between 0 and 1"):
            lib.nn.functional.binary_cross_entropy(lib.full((3,), 0.5), lib.tensor([0.0, 1.0, 2.0]))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses_take_a_weight_as_torch(name, reduction):
    # PyTorch 2.13's weight=: 'mean' is sum(w * loss) / sum(w) for mse and l1, mean(w * loss) for huber
    rng = np.random.default_rng(0)
    x, t, w = rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), rng.random((2, 3))
    results = []
    for lib in (minitorch, torch):
        a, b, c = (lib.tensor(v, requires_grad=True) for v in (x, t, w))
        out = getattr(lib.nn.functional, name)(a, b, reduction=reduction, weight=c)
        out.sum().backward()
        results.append([out.detach().numpy()] + [v.grad.numpy() for v in (a, b, c)])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        getattr(minitorch.nn.functional, name)(minitorch.ones(2, 3), minitorch.ones(2, 3), weight=minitorch.ones(3))


# ---------------------------------------------------------------------- data
class _Samples:
    """A map-style dataset of dict samples holding arrays, numbers, tuples and NumPy scalars."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"x": np.full(2, i, dtype=np.float64), "y": i, "pair": (i, [i, i]), "s": np.float32(i / 2)}


def _plain(batch):
    """A batch as nested Python containers of (kind, dtype, values), to compare across libraries."""
    if isinstance(batch, dict):
        return {k: _plain(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [_plain(v) for v in batch])
    if hasattr(batch, "tolist") and hasattr(batch, "dtype"):
        return ("tensor", str(batch.dtype).split(".")[-1], batch.tolist())
    return batch


@pytest.mark.parametrize("batch_size", [None, 1, 3])
def test_data_loader_batches_have_torchs_containers(batch_size):
    # tuples collate (and convert, with batch_size=None) into lists; arrays and NumPy scalars to tensors
    from torch.utils import data as torch_data

    mine = [_plain(b) for b in minitorch.data.DataLoader(_Samples(), batch_size=batch_size)]
    theirs = [_plain(b) for b in torch_data.DataLoader(_Samples(), batch_size=batch_size)]
    assert mine == theirs
    x, y = np.arange(12.0).reshape(6, 2), np.arange(6)
    mine = minitorch.data.DataLoader(minitorch.data.TensorDataset(minitorch.tensor(x), minitorch.tensor(y)), batch_size)
    theirs = torch_data.DataLoader(torch_data.TensorDataset(torch.tensor(x), torch.tensor(y)), batch_size)
    assert [_plain(b) for b in mine] == [_plain(b) for b in theirs]


def test_data_errors_have_torchs_types():
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        minitorch.data.DataLoader(minitorch.data.TensorDataset(minitorch.zeros(3)), batch_size=None, drop_last=True)
    with pytest.raises(AssertionError, match="Size mismatch"):  # PyTorch asserts it
        minitorch.data.TensorDataset(minitorch.zeros(3), minitorch.zeros(4))
    with pytest.raises(IndexError, match=r"shapes \(\)"):
        minitorch.data.TensorDataset(minitorch.tensor(1.0))
    dataset = minitorch.data.TensorDataset(minitorch.arange(5))
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        minitorch.data.DataLoader(dataset, num_workers=-1)
    # PyTorch scripts pass num_workers/pin_memory: accepted, same batches
    batches = minitorch.data.DataLoader(dataset, batch_size=2, num_workers=2, pin_memory=True)
    assert [b[0].tolist() for b in batches] == [[0, 1], [2, 3], [4]]


# ---------------------------------------------------------------------- optimizers
OPTIMIZER_FLAGS = [
    ("Adam", dict(amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(amsgrad=True, maximize=True)),
    ("Adam", dict(decoupled_weight_decay=True, weight_decay=0.3, foreach=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, maximize=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.5, nesterov=True, maximize=True)),
    ("RMSprop", dict(maximize=True, centered=True, momentum=0.3)),
    ("Adagrad", dict(maximize=True, weight_decay=0.2)),
    ("Adadelta", dict(maximize=True, weight_decay=0.1)),
]


@pytest.mark.parametrize("name,kwargs", OPTIMIZER_FLAGS, ids=[f"{n}-{k}" for n, k in OPTIMIZER_FLAGS])
def test_amsgrad_maximize_and_state_dict_keys_match_torch(name, kwargs):
    # 12 steps, one parameter without a gradient every third step, two groups with their own lr
    rng = np.random.default_rng(0)
    shapes = [(3, 2), (4,), ()]
    values = [rng.standard_normal(s) for s in shapes]
    grads = [[rng.standard_normal(s) for s in shapes] for _ in range(12)]
    results = []
    for lib in (minitorch, torch):
        params = [lib.tensor(v, requires_grad=True) for v in values]
        opt = getattr(lib.optim, name)([{"params": params[:2]}, {"params": params[2:], "lr": 0.03}], **kwargs)
        for step, step_grads in enumerate(grads):
            for i, (p, g) in enumerate(zip(params, step_grads)):
                p.grad = None if (step + i) % 3 == 2 else lib.tensor(g)
            opt.step()
        saved = opt.state_dict()
        state = {
            i: {k: np.asarray(v.tolist() if hasattr(v, "tolist") else v) for k, v in s.items()}
            for i, s in saved["state"].items()
        }
        groups = [{k: v for k, v in g.items() if k != "params"} for g in saved["param_groups"]]
        results.append(([p.detach().numpy() for p in params], state, groups))
    (mine, mine_state, mine_groups), (theirs, theirs_state, theirs_groups) = results
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert mine_groups == [{**g, "betas": tuple(g["betas"])} if "betas" in g else g for g in theirs_groups]
    assert mine_state.keys() == theirs_state.keys()
    for i in theirs_state:
        assert mine_state[i].keys() == theirs_state[i].keys()
        for key in theirs_state[i]:
            np.testing.assert_allclose(mine_state[i][key], theirs_state[i][key], rtol=1e-10, atol=1e-12)


def test_unsupported_optimizer_flags_are_refused_clearly():
    p = minitorch.zeros(2, requires_grad=True)
    for key in ("differentiable", "capturable"):
        with pytest.raises(ValueError, match=f"{key}=True is not supported"):
            minitorch.optim.Adam([p], **{key: True})
    with pytest.raises(TypeError, match="maximize must be True or False"):
        minitorch.optim.SGD([p], lr=0.1, maximize="yes")


# ---------------------------------------------------------------------- factories
def test_tensor_of_a_list_of_tensors_reads_one_element_tensors_as_numbers():
    for lib in (minitorch, torch):
        made = lib.tensor([lib.tensor([1.5]), lib.tensor(2.0), lib.tensor([[3.0]])])
        assert tuple(made.shape) == (3,) and made.tolist() == [1.5, 2.0, 3.0]
        assert tuple(lib.tensor([[lib.tensor([1.0])], [lib.tensor(2)]]).shape) == (2, 1)
        with pytest.raises(ValueError, match="only one element tensors"):
            lib.tensor([lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])])


def test_randint_takes_requires_grad_as_torch():
    for lib in (minitorch, torch):
        assert lib.randint(0, 3, (2,), dtype=lib.float32, requires_grad=True).requires_grad
        assert lib.randint_like(lib.zeros(2), 3, requires_grad=True).requires_grad
        with pytest.raises(RuntimeError, match="(?i)floating point"):
            lib.randint(0, 3, (2,), requires_grad=True)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"])
def test_optimizer_repr_lists_torchs_settings_and_defaults(name):
    kwargs = dict(lr=0.1) if name == "SGD" else {}
    mine = repr(getattr(minitorch.optim, name)([minitorch.zeros(2, requires_grad=True)], **kwargs))
    assert mine == repr(getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kwargs))


@pytest.mark.parametrize(
    "name,kwargs", [("Adam", dict(lr=0.1, amsgrad=True)), ("RMSprop", dict(centered=True, momentum=0.5))]
)
def test_a_pytorch_optimizer_state_dict_loads_and_training_continues_identically(name, kwargs):
    rng = np.random.default_rng(0)
    grads = rng.standard_normal((6, 3))
    theirs = torch.tensor(rng.standard_normal(3), requires_grad=True)
    torch_opt = getattr(torch.optim, name)([theirs], **kwargs)
    for g in grads[:3]:
        theirs.grad = torch.tensor(g)
        torch_opt.step()
    mine = minitorch.tensor(theirs.detach().numpy(), requires_grad=True)
    opt = getattr(minitorch.optim, name)([mine], **kwargs)
    opt.load_state_dict(torch_opt.state_dict())  # torch tensors in the state, a 0-d float32 tensor as step
    for g in grads[3:]:
        theirs.grad, mine.grad = torch.tensor(g), minitorch.tensor(g)
        torch_opt.step()
        opt.step()
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    assert opt.state[mine]["step"] == 6


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "logsumexp", "argmax", "argmin", "prod", "var", "std"])
def test_reductions_take_numpys_keepdims_spelling_as_torch(op):
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    theirs = getattr(torch.tensor(x), op)(1, keepdims=True)
    mine = getattr(minitorch.tensor(x), op)(1, keepdims=True)
    assert tuple(mine.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)


def test_norm_refuses_keepdims_as_torch():
    with pytest.raises(TypeError):
        torch.ones(2, 3).norm(dim=1, keepdims=True)
    with pytest.raises(TypeError):
        minitorch.ones(2, 3).norm(dim=1, keepdims=True)
