"""``bench/gpu.py`` runs anywhere: a smoke test with tiny sizes, on the CPU and on the fake GPU.

Timings are not checked here (benchmarks are measured by the script, never by tests);
what is checked is that every mode trains the same model to the same loss.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch import autograd
from minitorch.examples.per_op_copies import count_transfers, host_batches, per_op_copies

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gpu.py"


@pytest.fixture(scope="module")
def gpu_bench():
    spec = importlib.util.spec_from_file_location("bench_gpu", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runs_and_prints_a_table(gpu_bench, capsys):
    rows = gpu_bench.main(["--samples", "1024", "--hidden", "16", "--batches", "128,256", "--steps", "2",
                           "--blocks", "1"])
    out = capsys.readouterr().out
    assert "| MiniTorch CPU, 1 thread |" in out and "| PyTorch CUDA |" in out and "threads" in out
    labels = [row["label"] for row in rows]
    assert labels[:2] == ["MiniTorch CPU, 1 thread", "MiniTorch CPU, all cores"]
    assert rows[0]["step"] > 0 and rows[0]["first"] > 0 and {r["batch"] for r in rows} == {128, 256}
    if not minitorch.cuda.is_available():
        assert "skipped: no usable GPU" in out and "targets: not measured" in out


def test_every_mode_trains_the_same_model(gpu_bench, fake_gpu):
    x, y = gpu_bench.make_data(1024, features=20)
    _, _, cpu_loss = gpu_bench.time_minitorch(x, y, 128, "cpu", 16, steps=3, blocks=1)
    _, _, resident_loss = gpu_bench.time_minitorch(x, y, 128, "cuda", 16, steps=3, blocks=1)
    with per_op_copies(minitorch.cuda.cupy_module()):
        _, _, copies_loss = gpu_bench.time_minitorch(x, y, 128, "cpu", 16, steps=3, blocks=1, copies=True)
    assert resident_loss == pytest.approx(cpu_loss, rel=1e-4)
    assert copies_loss == pytest.approx(cpu_loss, rel=1e-5)


def test_per_op_copies_upload_the_batch_not_the_dataset(gpu_bench):
    """Gathered outside the ops, a step moves about a batch's worth of bytes, not the whole ``x``."""
    x, y = gpu_bench.make_data(4096, features=64)  # 1 MiB of inputs, batch 128 = 32 KiB
    model = gpu_bench.make_model(64, 16, 10)
    order = np.arange(4096)
    per_step = []
    for batches in (host_batches(x, y, order, 128),
                    gpu_bench.device_batches(minitorch.tensor(x), minitorch.tensor(y), minitorch.tensor(order), 128)):
        with count_transfers() as moved:
            for _ in range(3):
                xb, yb = next(batches)
                minitorch.nn.functional.cross_entropy(model(xb), yb).backward()
        per_step.append(moved.to_device / 3)
    host, as_op = per_step
    assert as_op > x.nbytes  # x[idx] as an op uploads the whole dataset every step
    assert host < x.nbytes / 4  # gathered on the host: a few copies of the batch (forward, backward)


def test_per_op_copies_puts_the_ops_back(gpu_bench, fake_gpu):
    before = {name: (fn.forward, fn.backward) for name, fn in autograd.REGISTRY.items()}
    with per_op_copies(minitorch.cuda.cupy_module()):
        assert autograd.REGISTRY["Add"].forward is not before["Add"][0]
    assert {name: (fn.forward, fn.backward) for name, fn in autograd.REGISTRY.items()} == before


def test_count_transfers_adds_up_the_bytes_per_op_copies_would_move():
    x = minitorch.ones(4, 3, requires_grad=True)  # float32: 48 bytes
    w = minitorch.ones(3, 2, requires_grad=True)  # 24 bytes
    with count_transfers() as moved:
        y = x @ w  # up: x, w; down: y (32 bytes) and the saved x, w
    assert (moved.to_device, moved.to_host) == (48 + 24, 32 + 48 + 24)
    assert moved.copies == 5 and moved.total == 48 + 24 + 32 + 48 + 24
    with count_transfers() as moved:
        y.backward(minitorch.ones(4, 2))  # up: grad, x, w; down: both input grads
    assert (moved.to_device, moved.to_host) == (32 + 48 + 24, 48 + 24)
    assert x.grad.tolist() == [[2.0, 2.0, 2.0]] * 4
