"""How many kernels a GPU training step launches, counted with the fake CuPy.

On a GPU each CuPy call costs 5-20 µs of host time to launch, so a small model's step is
bound by the number of launches, not by the arithmetic. ``fake_cupy.LAUNCHES`` counts
what real CuPy would launch (approximately: see its docstring). These tests pin the counts
of the fused paths (Adam/AdamW and SGD as one kernel per parameter, the softmax-cross-
entropy forward as one kernel) against the plain-CuPy path (``use_custom_kernels(False)``);
Sequential's Linear -> ReLU fusion has its own tests in ``test_cuda_fusion.py``.
Also here: the device-side range checks, the CuPy seed, and dropout's float32 masks.
"""


import fake_cupy
import numpy as np
import pytest
from fake_cupy import LAUNCHES, FakeCupy

import minitorch
from minitorch import backends
from minitorch.errors import MiniTorchIndexError
from minitorch.nn import functional as F


def _setup(optimizer):
    minitorch.manual_seed(0)
    nn = minitorch.nn
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 10)).to("cuda")
    opt = optimizer(model.parameters())
    x = minitorch.randn(64, 20, device="cuda")
    y = minitorch.randint(0, 10, (64,), device="cuda")
    return model, opt, x, y


def count_step_launches(optimizer, custom=True):
    """Launches of (forward + backward, optimizer step) in the second step (state exists by then)."""
    model, opt, x, y = _setup(optimizer)
    with minitorch.cuda.use_custom_kernels(custom):
        for _ in range(2):
            LAUNCHES.clear()
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            graph = sum(LAUNCHES.values())
            LAUNCHES.clear()
            opt.step()
            step = sum(LAUNCHES.values())
    return graph, step


OPTIMIZERS = {
    "sgd": lambda ps: minitorch.optim.SGD(ps, lr=0.1, momentum=0.9),
    "adam": lambda ps: minitorch.optim.Adam(ps, lr=1e-3),
    "adamw": lambda ps: minitorch.optim.AdamW(ps, lr=1e-3),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_step_is_one_launch_per_parameter(fake_gpu, name):
    plain_graph, plain_step = count_step_launches(OPTIMIZERS[name], custom=False)
    graph, step = count_step_launches(OPTIMIZERS[name])
    assert step == 4  # two weights, two biases: one kernel each
    assert plain_step >= 4 * (3 if name == "sgd" else 9)  # the array expressions, per parameter
    # Forward + backward: 28 with the fused cross-entropy forward, the ReLU backward kernel and
    # Linear -> ReLU run as one BiasReLU kernel (29 before that fusion); 38 in plain CuPy.
    # cross_entropy ignores ignore_index (-100) labels as PyTorch does; on the GPU the fused
    # forward kernel skips them and flags out-of-range labels itself (no mask arrays, no sync):
    # the range check's comparison is gone and the mean divides by a summed count instead of
    # N (one reduction), so the kernels launched are as before. The fake also counts the two
    # extra output buffers of that kernel (cupy.empty, a pool allocation, not a launch): 30.
    # Plain CuPy (no custom kernels) masks the ignored rows with array ops: 47, then 49 since
    # the reference cross-entropy keeps only the logits, computes the softmax again in
    # backward (max, exp, sum, divide) and subtracts one-hot labels (==, -) where it used to
    # scatter into a copy of the kept probabilities; 51 since that backward also runs on graph
    # values (create_graph=True): the one-hot labels are cast to the logits' dtype (a bool
    # minus a float is refused on graph values) and the rows that count are a bool mask, counted.
    assert (graph, plain_graph) == (30, 51)


def test_fused_cross_entropy_forward_is_one_kernel(fake_gpu, rng, fast_kernels):
    logits = minitorch.tensor(rng.standard_normal((8, 5)).astype(np.float32), device="cuda")
    target = minitorch.tensor(rng.integers(0, 5, 8), device="cuda")
    LAUNCHES.clear()
    loss = F.cross_entropy(logits, target)
    assert LAUNCHES["minitorch_softmax_xent_forward"] == 1
    kernel_launches = sum(LAUNCHES.values())
    LAUNCHES.clear()
    with minitorch.cuda.use_custom_kernels(False):
        plain = F.cross_entropy(logits, target)
    assert kernel_launches < sum(LAUNCHES.values())
    want = F.cross_entropy(logits.cpu(), target.cpu())
    assert loss.item() == pytest.approx(want.item(), rel=1e-6)
    assert plain.item() == pytest.approx(want.item(), rel=1e-6)


@pytest.mark.parametrize("name", ["adam", "adamw"])
def test_fused_adam_matches_the_cpu(fake_gpu, name, rng):
    make = {"adam": lambda ps: minitorch.optim.Adam(ps, lr=1e-2, weight_decay=1e-2),
            "adamw": lambda ps: minitorch.optim.AdamW(ps, lr=1e-2, weight_decay=1e-1)}[name]
    start = rng.standard_normal((6, 4)).astype(np.float32)
    grads = [rng.standard_normal((6, 4)).astype(np.float32) for _ in range(3)]
    results = []
    for device in ("cpu", "cuda"):
        p = minitorch.nn.Parameter(minitorch.tensor(start, device=device))
        opt = make([p])
        for g in grads:
            p.grad = minitorch.tensor(g, device=device)
            version = p._version
            opt.step()
            assert p._version > version  # an in-place update bumps the version counter
        results.append(p.detach().cpu().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------- device-side checks
def test_bad_label_on_gpu_raises_at_the_next_sync_not_before(fake_gpu):
    logits = minitorch.zeros(4, 3, device="cuda")
    bad = minitorch.tensor([0, 1, 3, 2], device="cuda")
    fake_gpu.synchronized = 0
    loss = F.cross_entropy(logits, bad)  # no error yet, and no wait for the GPU
    assert fake_gpu.synchronized == 0
    with pytest.raises(MiniTorchIndexError, match=r"outside \[0, 2\]"):
        loss.cpu()  # the next sync point (a copy to the host, or synchronize())
    assert F.cross_entropy(logits, minitorch.tensor([0, 1, 2, 2], device="cuda")).cpu().item() > 0  # cleared
    F.nll_loss(logits, minitorch.tensor([-1, 0, 0, 0], device="cuda"))
    with pytest.raises(MiniTorchIndexError, match="sync point"):
        minitorch.cuda.synchronize()
    minitorch.cuda.synchronize()  # reported once


@pytest.mark.parametrize("read", [lambda t: t.item(), lambda t: t.tolist()], ids=["item", "tolist"])
def test_reading_a_value_is_a_sync_point_too(fake_gpu, read):
    loss = F.cross_entropy(minitorch.zeros(4, 3, device="cuda"), minitorch.tensor([0, 1, 3, 2], device="cuda"))
    with pytest.raises(MiniTorchIndexError, match=r"outside \[0, 2\]"):
        read(loss)


def test_bad_embedding_index_on_gpu_raises_at_sync(fake_gpu):
    weight = minitorch.ones(5, 2, device="cuda")
    out = F.embedding(minitorch.tensor([[0, -1]], device="cuda"), weight)  # CuPy would wrap -1 silently
    with pytest.raises(MiniTorchIndexError, match="out of range for 5 embeddings"):
        out.cpu()


def test_debug_mode_checks_labels_at_once_on_gpu(fake_gpu):
    minitorch.autograd.set_debug(True)  # the tests' teardown resets the switches
    with pytest.raises(MiniTorchIndexError, match="must be in"):
        F.cross_entropy(minitorch.zeros(2, 3, device="cuda"), minitorch.tensor([0, 5], device="cuda"))


# ---------------------------------------------------------------------- random numbers
def test_manual_seed_seeds_cupy_and_dropout_draws_float32(fake_gpu):
    minitorch.manual_seed(123)
    assert fake_gpu.seeds[-1] == 123
    x = minitorch.ones(256, device="cuda")
    LAUNCHES.clear()
    a = F.dropout(x, 0.5).cpu().numpy()
    assert LAUNCHES["random"] == 1 and LAUNCHES["astype"] <= 1  # the mask's own cast, not the draw's
    minitorch.manual_seed(123)
    b = F.dropout(x, 0.5).cpu().numpy()
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, 2.0} and a.dtype == np.float32


def test_seed_set_before_the_gpu_is_found_reaches_cupy(monkeypatch):
    minitorch.manual_seed(7)
    fake = FakeCupy()
    fake_cupy.install(monkeypatch, fake)
    backends.reset_probes()
    try:
        assert minitorch.cuda.is_available() and fake.seeds == [7]
    finally:
        backends.reset_probes()


def test_install_hint_names_the_fix_for_the_installed_cupy(monkeypatch):
    import importlib.metadata

    from minitorch.cuda.backend import install_hint

    def installed(*names):
        def version(name):
            if name in names:
                return "14.2.0"
            raise importlib.metadata.PackageNotFoundError(name)

        monkeypatch.setattr(importlib.metadata, "version", version)

    fake = FakeCupy()
    fake.cuda.runtime.driverGetVersion = lambda: 12080
    installed("cupy-cuda12x")
    assert "cupy-cuda12x[ctk]" in install_hint(fake) and "cupy-cuda13x[ctk]" in install_hint(fake)
    installed("cupy-cuda13x")
    assert "supports CUDA 12 only" in install_hint(fake)
    fake.cuda.runtime.driverGetVersion = lambda: 13000
    assert install_hint(fake).startswith("install cupy-cuda13x[ctk]")
    installed("cupy")
    assert "conda install -c conda-forge cupy cuda-version=13" == install_hint(fake)
