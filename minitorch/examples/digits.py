"""Train a classifier on the 8x8 handwritten digits, headless, from the command line.

    python -m minitorch.examples.digits --model mlp --epochs 20
    python -m minitorch.examples.digits --model cnn --epochs 20 --seed 3
    python -m minitorch.examples.digits --amp                        # mixed precision (float16)
    mpiexec -n 2 python -m minitorch.examples.digits --distributed   # data-parallel on 2 ranks

Recipe (the same one bench/digits_accuracy.py runs in PyTorch): pixels standardised with
the training images' statistics, Adam, lr 1e-2, a cosine learning-rate schedule over the
epochs, batch 64, cross-entropy loss. Each epoch prints the mean training loss, the test
accuracy and the seconds it took.

With ``--distributed`` (under ``mpiexec -n N``) each rank trains on its share of every
batch (``DistributedSampler``, batch ``batch_size / N`` per rank, so the global batch is the
same), ``DistributedDataParallel`` averages the gradients, and rank 0 prints.

With ``--amp`` the forward pass (and the test accuracy) runs under ``minitorch.autocast``
on the chosen device (the matrix products in float16, the loss in float32; lesson 14) and a
``minitorch.amp.GradScaler`` scales the loss. The parameters and Adam's state stay float32.
On the CPU this is slower, not faster: NumPy emulates float16 arithmetic.
"""

import argparse
import contextlib
import sys
import time

import minitorch
from minitorch import nn
from minitorch.data import DataLoader, TensorDataset
from minitorch.datasets import load_digits
from minitorch.errors import MiniTorchError


def make_mlp():
    """64 pixels -> 128 hidden units (ReLU) -> 10 class scores."""
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def make_cnn():
    """Two 3x3 conv + ReLU + 2x2 max-pool stages (8x8 -> 4x4 -> 2x2), then a linear layer."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10),
    )


MODELS = {"mlp": make_mlp, "cnn": make_cnn}


def accuracy(model, X, y, batch_size=512, amp=False):
    """Fraction of ``X`` that ``model`` classifies correctly (evaluation mode, no graph).

    ``amp``: run the model under ``autocast`` on ``X``'s device, as it was trained.
    """
    model.eval()
    correct = 0
    with minitorch.no_grad(), minitorch.autocast(X.device.type, enabled=amp):
        for start in range(0, X.shape[0], batch_size):
            logits = model(X[start : start + batch_size])
            correct += int((logits.argmax(dim=1) == y[start : start + batch_size]).sum().item())
    model.train()
    return correct / X.shape[0]


def _distributed_setup(dataset, batch_size, seed):
    """Join the MPI ranks; this rank's sampler and per-rank batch size (the global batch is kept)."""
    from minitorch import distributed as dist
    from minitorch.data import DistributedSampler

    if not dist.is_initialized():
        dist.init_process_group("mpi")
    world = dist.get_world_size()
    if batch_size % world:
        raise MiniTorchError(f"--distributed: batch size {batch_size} does not divide by the {world} ranks")
    return DistributedSampler(dataset, shuffle=True, seed=seed), batch_size // world, dist.get_rank()


def train(model_name="mlp", epochs=20, lr=1e-2, batch_size=64, seed=0, device="cpu", progress=True, log=print,
          distributed=False, amp=False):
    """Train one model; returns a dict with the per-epoch history and the final test accuracy.

    ``distributed=True``: one rank of a data-parallel run (launched by mpiexec); only rank 0 logs.
    ``amp=True``: mixed precision (autocast + GradScaler); the history also has the loss
    scale and the number of skipped steps per epoch.
    """
    if device == "cuda" and not minitorch.cuda.is_available():
        raise MiniTorchError(f"--device cuda: no usable GPU ({minitorch.cuda.unavailable_reason()})")
    minitorch.manual_seed(seed)
    split = load_digits(images=model_name == "cnn")
    X_train, y_train = split.X_train.to(device), split.y_train.to(device)
    X_test, y_test = split.X_test.to(device), split.y_test.to(device)
    dataset, sampler, rank = TensorDataset(X_train, y_train), None, 0
    if distributed:
        sampler, batch_size, rank = _distributed_setup(dataset, batch_size, seed)
        progress, log = progress and rank == 0, log if rank == 0 else (lambda _: None)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    else:
        loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, seed=seed)
    model = MODELS[model_name]().to(device)
    trained = nn.parallel.DistributedDataParallel(model) if distributed else model
    optimizer = minitorch.optim.Adam(model.parameters(), lr=lr)
    scheduler = minitorch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    loss_fn = nn.CrossEntropyLoss()
    # Both are pass-throughs when amp is False: autocast changes nothing, scale(loss) is loss.
    scaler = minitorch.amp.GradScaler(device, enabled=amp)
    history = []
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        total, count, skipped = 0.0, 0, 0
        if sampler is not None:
            sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        batches = loader
        if progress:  # tqdm only for the bar: --no-progress runs without it (bench/gpu_check.sh)
            from tqdm.auto import tqdm

            batches = tqdm(loader, desc=f"epoch {epoch}/{epochs}", leave=False, file=sys.stderr)
        for xb, yb in batches:
            with minitorch.autocast(device, enabled=amp):
                loss = loss_fn(trained(xb), yb)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scale = scaler.get_scale()
            scaler.update()
            skipped += int(scaler.get_scale() < scale)  # the scale backs off after a skipped (inf/NaN) step
            total += loss.item() * xb.shape[0]
            count += xb.shape[0]
        scheduler.step()
        if distributed:  # the epoch's loss over all ranks' samples
            total, count = _sum_over_ranks(total, count)
        seconds = time.perf_counter() - start
        acc = accuracy(model, X_test, y_test, amp=amp)
        history.append({"epoch": epoch, "loss": total / count, "test_acc": acc, "seconds": seconds})
        scaling = ""
        if amp:
            history[-1].update(loss_scale=scaler.get_scale(), skipped_steps=skipped)
            scaling = f"  loss scale {scaler.get_scale():g} ({skipped} skipped)"
        log(f"epoch {epoch:3d}/{epochs}  loss {total / count:.4f}  test acc {100 * acc:6.2f}%  "
            f"{seconds:.3f} s/epoch{scaling}")
    return {"model": model, "history": history, "test_acc": history[-1]["test_acc"] if history else None}


def _sum_over_ranks(*values):
    """Each value summed over the ranks (float64, so the sum is exact enough)."""
    from minitorch import distributed as dist

    t = minitorch.tensor(list(values), dtype=minitorch.float64)
    dist.all_reduce(t)
    return tuple(t.tolist())


def blas_threads(n):
    """Limit NumPy's BLAS to ``n`` threads while training (a no-op for n=0 or without threadpoolctl).

    These matrices (64 x 128) are far too small for threads to help; on a busy machine,
    BLAS threads spin waiting for each other and an epoch can take many times longer.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=n, user_api="blas") if n else contextlib.nullcontext()


def main(argv=None):
    parser = argparse.ArgumentParser(description="Train an MLP or a small CNN on scikit-learn's 8x8 digits.")
    parser.add_argument("--model", choices=sorted(MODELS), default="mlp")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm progress bar")
    parser.add_argument(
        "--threads", type=int, default=1, help="BLAS threads for NumPy (default 1; 0 keeps the library's default)"
    )
    parser.add_argument("--amp", action="store_true",
                        help="mixed precision: autocast (float16 matrix products) + GradScaler (lesson 14)")
    parser.add_argument("--distributed", action="store_true",
                        help="data-parallel over MPI ranks: run as mpiexec -n N python -m minitorch.examples.digits")
    args = parser.parse_args(argv)
    if args.device == "cuda" and not minitorch.cuda.is_available():
        parser.exit(2, f"error: --device cuda but no usable GPU: {minitorch.cuda.unavailable_reason()}\n")
    split = load_digits()
    rank = 0
    if args.distributed:
        from minitorch import distributed as dist

        try:
            dist.init_process_group("mpi")
        except dist.DistributedError as exc:
            parser.exit(2, f"error: --distributed: {exc}\n")
        rank = dist.get_rank()
    say = print if rank == 0 else (lambda *a, **k: None)
    ranks = f", {dist.get_world_size()} ranks" if args.distributed else ""
    amp = ", mixed precision (autocast + GradScaler)" if args.amp else ""
    say(
        f"digits: {split.X_train.shape[0]} train / {split.X_test.shape[0]} test images, model {args.model}, "
        f"Adam lr {args.lr} + cosine schedule, batch {args.batch_size}, seed {args.seed}, device {args.device}"
        f"{ranks}{amp}"
    )
    start = time.perf_counter()
    with blas_threads(args.threads):
        result = train(args.model, args.epochs, args.lr, args.batch_size, args.seed, args.device, not args.no_progress,
                       distributed=args.distributed, amp=args.amp)
    history = result["history"]
    mean_epoch = sum(h["seconds"] for h in history) / max(len(history), 1)
    scaling = ""
    if args.amp and history:
        skipped = sum(h["skipped_steps"] for h in history)
        scaling = f"; final loss scale {history[-1]['loss_scale']:g}, {skipped} steps skipped"
    say(
        f"final test accuracy {100 * result['test_acc']:.2f}%  ({mean_epoch:.3f} s/epoch, "
        f"{time.perf_counter() - start:.1f} s in all{scaling})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
