"""``minitorch.cuda.syncs.synchronises``: sees every kind of host-device synchronisation.

On the fake CuPy (whose device never finishes work until the host waits for it, see
``fake_cupy.Event``): a training step that only queues work is not a sync; each way Python
can wait for the GPU is (a copy to the host, ``item()``, ``float()``, ``bool()``, printing, a
boolean-mask index, ``nonzero``, an explicit ``synchronize()``). CuPy's deprecated
``cupyx.allow_synchronize(False)``, which the step check used before, saw only ``get()`` and
``Device.synchronize()``. ``test_gpu.py`` runs the same check on a real GPU.
"""

import pytest
from fake_cupy import SYNCS

import minitorch
from minitorch.cuda import syncs
from minitorch.errors import MiniTorchError
from minitorch.nn import functional as F


def training_step():
    """One SGD step of a small classifier on "cuda", and the loss tensor holder."""
    minitorch.manual_seed(0)
    model = minitorch.nn.Sequential(
        minitorch.nn.Linear(8, 16), minitorch.nn.ReLU(), minitorch.nn.Linear(16, 3)
    ).to("cuda")
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = minitorch.randn(32, 8, device="cuda")
    y = minitorch.randint(0, 3, (32,), device="cuda")

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def test_a_training_step_does_not_synchronise(fake_gpu):
    step = training_step()
    SYNCS.clear()
    assert syncs.synchronises(step) is False
    assert set(SYNCS) <= {"device"}  # only the check's own synchronize() between its runs


SYNCING = {
    "item": lambda loss: loss.item(),
    "float": lambda loss: float(loss),
    "bool": lambda loss: bool(loss > 0),
    "cpu": lambda loss: loss.cpu(),
    "print": lambda loss: str(loss),
    "mask": lambda loss: loss.reshape(1)[loss.reshape(1) > 0],
    "nonzero": lambda loss: minitorch.nonzero(loss.reshape(1)),
    "synchronize": lambda loss: minitorch.cuda.synchronize(),
}


@pytest.mark.parametrize("name", sorted(SYNCING))
def test_every_kind_of_sync_in_a_step_is_seen(fake_gpu, name):
    step = training_step()

    def step_with_a_sync():
        SYNCING[name](step())

    assert syncs.synchronises(step_with_a_sync) is True


def test_the_check_needs_a_gpu(monkeypatch):
    import sys

    from minitorch import backends

    monkeypatch.setitem(sys.modules, "cupy", None)
    backends.reset_probes()
    try:
        with pytest.raises(MiniTorchError, match="no usable GPU"):
            syncs.synchronises(lambda: None)
    finally:
        backends.reset_probes()
