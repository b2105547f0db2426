"""On a GPU, a compiled step replays as one CUDA graph launch (checked with the fake CuPy).

The fake records captures and counts launches; it runs the kernels while capturing and
does nothing on launch, so the numbers it gives are those of the captured step. Whether a
real GPU's graph replays the step right is checked by bench/gpu_check.sh on a GPU.
"""

import numpy as np
import pytest
from fake_cupy import LAUNCHES

import minitorch
from minitorch.nn import functional as F

# A step that can be captured is one without a sync: the GPU's fast kernels check the labels
# on the device (the reference cross-entropy reads them back), so they are on here.
pytestmark = pytest.mark.usefixtures("fast_kernels")


def gpu_step(opt_kind="sgd", dropout=False):
    minitorch.manual_seed(0)
    layers = [minitorch.nn.Linear(4, 8), minitorch.nn.ReLU()]
    if dropout:
        layers.append(minitorch.nn.Dropout(0.5))
    model = minitorch.nn.Sequential(*layers, minitorch.nn.Linear(8, 3)).to("cuda")
    if opt_kind == "sgd":
        opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        opt = minitorch.optim.Adam(model.parameters(), lr=1e-2)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return model, minitorch.compile(step)


def batches(n=5):
    rng = np.random.default_rng(0)
    return [
        (
            minitorch.tensor(rng.standard_normal((6, 4)).astype(np.float32), device="cuda"),
            minitorch.tensor(rng.integers(0, 3, 6), device="cuda"),
        )
        for _ in range(n)
    ]


def test_a_compiled_sgd_step_is_captured_once_and_launched_once_per_step(fake_gpu):
    model, step = gpu_step()
    data = batches()
    step(*data[0])  # trace (eager)
    step(*data[1])  # capture, then the first launch
    entry = next(iter(step.entries.values()))
    graphed = entry.captured
    assert graphed is not None and graphed.step.stream.captures == 1
    LAUNCHES.clear()
    for x, y in data[2:]:
        loss = step(x, y)
    assert LAUNCHES["graph"] == 3  # one graph launch per step
    kernels = {k: n for k, n in LAUNCHES.items() if k not in ("graph", "fill")}
    assert kernels == {}, kernels  # and nothing else but copying the inputs in ("fill")
    assert LAUNCHES["fill"] == 2 * 3  # x and y, into the captured input arrays
    assert loss is graphed.step.output  # the captured output, refreshed by each launch
    assert model[0].weight.grad is not None  # the captured gradients stay the parameters' .grad
    assert "CUDA graph" not in str(minitorch.explain(step))  # captured: nothing to explain away


def test_adam_and_dropout_are_replayed_op_by_op_and_explain_says_why(fake_gpu):
    for kind, dropout, reason in (("adam", False, "Adam.step keeps Python numbers"), ("sgd", True, "random")):
        _, step = gpu_step(kind, dropout)
        data = batches(3)
        for x, y in data:
            step(x, y)
        entry = next(iter(step.entries.values()))
        assert entry.program is not None and entry.captured is None and entry.replays == 2
        assert reason in str(minitorch.explain(step))
        LAUNCHES.clear()
        step(*data[0])
        assert LAUNCHES["graph"] == 0 and sum(LAUNCHES.values()) > 5  # kernel by kernel


def test_capture_false_keeps_the_replay_in_python(fake_gpu):
    _, step = gpu_step()
    step.capture = False
    data = batches(3)
    for x, y in data:
        step(x, y)
    assert next(iter(step.entries.values())).captured is None


def test_changing_the_learning_rate_captures_again(fake_gpu):
    model, step = gpu_step()
    data = batches(5)
    step(*data[0])
    step(*data[1])
    graphed = next(iter(step.entries.values())).captured
    assert graphed.captures == 1
    opt = graphed.optimizers[0]
    opt.param_groups[0]["lr"] = 0.01  # a number inside the captured kernels
    step(*data[2])
    assert graphed.captures == 2
    step(*data[3])
    assert graphed.captures == 2


def test_a_cpu_trace_is_not_replayed_on_gpu_arrays_of_the_same_shape(fake_gpu):
    # NumPy's and CuPy's arrays are both called "ndarray" (the fake's is named so here too):
    # the guard must hold their types, not their names
    import fake_cupy

    fake_cupy.FakeDeviceArray.__name__ = "ndarray"
    try:
        compiled = minitorch.compile(lambda x: (x * 2).sum())
        cpu = minitorch.ones(3)
        gpu = minitorch.ones(3, device="cuda")
        assert compiled(cpu).item() == compiled(cpu).item() == 6
        assert compiled(gpu).device.type == "cuda"
        assert compiled.traces == 2 and len(compiled.entries) == 2
    finally:
        fake_cupy.FakeDeviceArray.__name__ = "FakeDeviceArray"
