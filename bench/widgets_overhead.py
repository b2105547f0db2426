"""What the visual layer costs a training run: the gradient recorder and the TrainingMonitor.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/widgets_overhead.py

Trains the digits MLP (64-128-10, batch 64, Adam) three ways, epochs interleaved so a
noisy shared machine slows all alike, and reports the fastest and the median epoch:
  plain      -- widgets' gradient recorder unregistered (the engine as without widgets);
  recorder   -- the gradient recorder installed, as draw_graph starts it (the engine observer
                keeps references to gradients);
  monitor    -- recorder plus ``monitor.update(step, loss=...)`` on every step and the
                accuracy once per epoch (logging only);
then the monitored run alone, with its live redraws really rendered to PNG, reports the
share of the run spent drawing (the monitor budgets that against wall time, which the
interleaving above would distort).
Target: the monitor adds under 5 % to a training run. All three read ``loss.item()`` and
evaluate the test accuracy once per epoch, so only the widgets differ.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

from _machine import describe  # noqa: E402

import minitorch  # noqa: E402
import widgets  # noqa: E402, F401
from minitorch import nn  # noqa: E402
from minitorch.data import DataLoader, TensorDataset  # noqa: E402
from minitorch.datasets import load_digits  # noqa: E402
from widgets.draw import recorder  # noqa: E402
from widgets.draw.monitor import TrainingMonitor  # noqa: E402


class _Sink:
    """Stands in for a notebook display handle: receives the PNG and drops it."""

    def __init__(self):
        self.updates = 0

    def update(self, obj):
        self.updates += 1


def epoch(model, optimizer, loader, monitor, step0):
    loss_fn = nn.CrossEntropyLoss()
    step = step0
    for xb, yb in loader:
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        value = loss.item()  # every run reads the loss, as a notebook loop would
        if monitor is not None:
            monitor.update(step, loss=value)
        step += 1
    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=60)
    args = parser.parse_args()
    split = load_digits()
    runs = {}
    for name in ("plain", "recorder", "monitor"):
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        optimizer = minitorch.optim.Adam(model.parameters(), lr=1e-2)
        loader = DataLoader(TensorDataset(split.X_train, split.y_train), batch_size=64, shuffle=True, seed=0)
        monitor = None
        if name == "monitor":  # logging only here: redraws are measured on their own below
            monitor = TrainingMonitor(model=model, grad_flow=True, display=False)
        runs[name] = {"model": model, "opt": optimizer, "loader": loader, "monitor": monitor, "times": [], "step": 0}
    for _ in range(args.epochs):
        for name, run in runs.items():
            if name == "plain":  # no observer at all: the engine as without widgets
                minitorch.autograd.remove_backward_observer(recorder._observe)
            else:
                recorder.install()
            start = time.perf_counter()
            run["step"] = epoch(run["model"], run["opt"], run["loader"], run["monitor"], run["step"])
            with minitorch.no_grad():  # every run evaluates; only the monitored one logs it
                acc = (run["model"](split.X_test).argmax(dim=1) == split.y_test).float().mean().item()
            if run["monitor"] is not None:
                run["monitor"].update(run["step"], acc=acc)
            run["times"].append(time.perf_counter() - start)
    print(describe())
    # The fastest epoch is the least disturbed by other processes; the median is shown too.
    base_min = min(runs["plain"]["times"])
    base_med = statistics.median(runs["plain"]["times"])
    for name, run in runs.items():
        fastest, med = min(run["times"]), statistics.median(run["times"])
        print(f"{name:>9}: fastest epoch {fastest * 1000:7.1f} ms ({(fastest / base_min - 1) * 100:+5.1f} %), "
              f"median {med * 1000:7.1f} ms ({(med / base_med - 1) * 100:+5.1f} %) vs plain")
    probe = TrainingMonitor(display=False)
    probe._handle = _Sink()
    probe._started, probe._draw_cost = time.perf_counter(), 1e9  # never draw: time update() alone
    start = time.perf_counter()
    for i in range(100_000):
        probe.update(i, loss=0.5)
    per_update = (time.perf_counter() - start) / 100_000
    steps = runs["monitor"]["step"]
    print(f"update() alone: {per_update * 1e6:.2f} us per call = "
          f"{per_update * steps / sum(runs['plain']['times']) * 100:.2f} % of the plain run")
    # The monitor budgets its drawing against wall time since the first update, and above
    # the other runs' epochs were interleaved in that wall time: measure drawing on its own.
    run = runs["monitor"]
    mon = TrainingMonitor(model=run["model"], grad_flow=True, display=False)
    mon._handle = _Sink()
    mon.warm_up()
    start = time.perf_counter()
    step = 0
    for _ in range(args.epochs):
        step = epoch(run["model"], run["opt"], run["loader"], mon, step)
    total = time.perf_counter() - start
    print(f"monitor alone, {args.epochs} epochs in {total:.2f} s: {mon.draws} live redraws, "
          f"{mon.draw_seconds:.2f} s drawing ({mon.draw_seconds / total * 100:.1f} % of the run)")
    start = time.perf_counter()
    mon.close()
    print(f"final figure (close): {time.perf_counter() - start:.2f} s, once after the loop")


if __name__ == "__main__":
    main()
