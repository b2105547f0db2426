"""Test accuracy of the digits MLP and CNN over 5 seeds, MiniTorch next to PyTorch.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/digits_accuracy.py
    .venv/bin/python bench/digits_accuracy.py --amp --models mlp   # + mixed precision rows

Both frameworks train with the recipe of ``python -m minitorch.examples.digits``: the same
stratified 80/20 split (``minitorch.datasets.load_digits``), Adam lr 1e-2, cosine schedule
over 20 epochs, batch 64, cross-entropy, each framework's own default initialisation and
shuffling seeded by the seed. Every seed is reported (no seed-picking) with the mean.
Targets: mean >= 97.0% for both models, MiniTorch within 0.5 points of PyTorch.

``--amp`` adds the same runs under mixed precision (``autocast("cpu")`` + ``GradScaler("cpu")``,
float16 matrix products, float32 parameters), for MiniTorch (``digits.train(amp=True)``)
and PyTorch. Target: MiniTorch's mixed-precision mean within 0.5 points of its float32 mean.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minitorch  # noqa: E402
from minitorch.examples import digits  # noqa: E402


def minitorch_run(model, seed, epochs, amp=False):
    result = digits.train(model, epochs=epochs, seed=seed, progress=False, log=lambda _: None, amp=amp)
    return result["test_acc"]


def minitorch_amp_run(model, seed, epochs):
    return minitorch_run(model, seed, epochs, amp=True)


def torch_amp_run(model, seed, epochs):
    return torch_run(model, seed, epochs, amp=True)


def torch_run(model, seed, epochs, lr=1e-2, batch_size=64, amp=False):
    import torch

    tnn = torch.nn
    torch.manual_seed(seed)
    split = minitorch.datasets.load_digits(images=model == "cnn")
    X, y = torch.from_numpy(split.X_train.data), torch.from_numpy(split.y_train.data)
    X_test, y_test = torch.from_numpy(split.X_test.data), torch.from_numpy(split.y_test.data)
    if model == "mlp":
        net = tnn.Sequential(tnn.Linear(64, 128), tnn.ReLU(), tnn.Linear(128, 10))
    else:
        net = tnn.Sequential(
            tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
            tnn.Conv2d(16, 32, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
            tnn.Flatten(), tnn.Linear(32 * 2 * 2, 10),
        )
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    scaler = torch.amp.GradScaler("cpu", enabled=amp)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=batch_size, shuffle=True,
                                         generator=torch.Generator().manual_seed(seed))
    for _ in range(epochs):
        net.train()
        for xb, yb in loader:
            with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
                loss = torch.nn.functional.cross_entropy(net(xb), yb)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        sched.step()
    net.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16, enabled=amp):
        return (net(X_test).argmax(1) == y_test).float().mean().item()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--models", default="mlp,cnn")
    parser.add_argument("--amp", action="store_true", help="also train under autocast + GradScaler (float16)")
    args = parser.parse_args(argv)
    frameworks = {"MiniTorch": minitorch_run}
    if args.amp:
        frameworks["MiniTorch AMP"] = minitorch_amp_run
    try:
        import torch  # noqa: F401

        frameworks["PyTorch"] = torch_run
        if args.amp:
            frameworks["PyTorch AMP"] = torch_amp_run
    except ImportError:
        pass
    seeds = list(range(args.seeds))
    for model in args.models.split(","):
        amp = "; AMP = autocast + GradScaler, float16 matrix products" if args.amp else ""
        print(f"\n### {model.upper()} ({args.epochs} epochs, Adam lr 1e-2 + cosine, batch 64{amp})\n")
        print("| framework | " + " | ".join(f"seed {s}" for s in seeds) + " | mean | s/run |")
        print("| --- | " + " | ".join("---:" for _ in seeds) + " | ---: | ---: |")
        means = {}
        for name, run in frameworks.items():
            start = time.perf_counter()
            accs = [run(model, s, args.epochs) for s in seeds]
            per_run = (time.perf_counter() - start) / len(seeds)
            means[name] = statistics.mean(accs)
            cells = " | ".join(f"{100 * a:.2f}" for a in accs)
            print(f"| {name} | {cells} | **{100 * means[name]:.2f}** | {per_run:.1f} |")
        print()
        if "PyTorch" in means:
            print(f"MiniTorch - PyTorch = {100 * (means['MiniTorch'] - means['PyTorch']):+.2f} points")
        if "MiniTorch AMP" in means:
            gap = 100 * (means["MiniTorch AMP"] - means["MiniTorch"])
            verdict = "MET" if abs(gap) <= 0.5 else "NOT MET"
            print(f"MiniTorch AMP - MiniTorch float32 = {gap:+.2f} points (target: within 0.5) -> {verdict}")
        if "PyTorch AMP" in means:
            print(f"PyTorch AMP - PyTorch float32 = {100 * (means['PyTorch AMP'] - means['PyTorch']):+.2f} points")


if __name__ == "__main__":
    main()
