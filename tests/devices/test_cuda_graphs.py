"""``minitorch.cuda.graphs.capture_step``: its bookkeeping, checked with the fake CuPy.

The fake records that a capture happened and counts replays; it cannot replay kernels, so
whether a captured MiniTorch step trains correctly on a real GPU is UNVERIFIED (run
``bench/gpu_check.sh`` there).
"""

import sys

import pytest
from fake_cupy import LAUNCHES

import minitorch
from minitorch import backends
from minitorch.cuda.graphs import capture_step
from minitorch.errors import MiniTorchError
from minitorch.nn import functional as F


def test_capture_warms_up_then_records_once_and_replays_without_python(fake_gpu):
    minitorch.manual_seed(0)
    model = minitorch.nn.Linear(4, 3).to("cuda")
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    static_x = minitorch.randn(8, 4, device="cuda")
    static_y = minitorch.randint(0, 3, (8,), device="cuda")
    calls = []

    def step():
        calls.append(1)
        opt.zero_grad()
        loss = F.cross_entropy(model(static_x), static_y)
        loss.backward()
        opt.step()
        return loss

    allocator = fake_gpu.allocator
    graphed = capture_step(step, warmup=2)
    assert len(calls) == 3  # two warm-up steps, one captured
    assert graphed.stream.captures == 1 and not graphed.stream.capturing
    assert fake_gpu.allocator is allocator  # the private pool was only in force during capture
    assert all(s["momentum_buffer"] is not None for s in opt.state.values())  # state made before capture
    LAUNCHES.clear()
    outputs = {id(graphed()) for _ in range(5)}
    assert len(calls) == 3 and graphed.replays == 5  # replays run no Python step
    assert outputs == {id(graphed.output)}  # the same output tensor every time
    assert dict(LAUNCHES) == {"graph": 5}  # one launch per step


def test_capture_ends_even_when_the_step_fails(fake_gpu):
    def step():
        if stream_state.get("capturing"):
            raise RuntimeError("sync during capture")

    stream_state = {}
    original = fake_gpu.cuda.Stream

    class Watched(original):
        def begin_capture(self):
            super().begin_capture()
            stream_state["capturing"] = True
            stream_state["stream"] = self

    fake_gpu.cuda.Stream = Watched
    assert minitorch.cuda.is_available()
    with pytest.raises(RuntimeError, match="sync during capture"):
        capture_step(step, warmup=1)
    assert stream_state["stream"].capturing is False


def test_capture_needs_a_gpu(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    backends.reset_probes()
    try:
        with pytest.raises(MiniTorchError, match="no usable GPU"):
            capture_step(lambda: None)
    finally:
        backends.reset_probes()
