"""ZeRO-1's optimizer state per rank against data parallelism's, on 2 and 4 ranks.

    .venv/bin/python bench/zero_memory.py

The model is lesson 13's character transformer (``minitorch.examples.charlm``, d_model 128,
4 heads, ``--layers`` blocks, a vocabulary of 96, float32). Each rank wraps it in DDP and
steps it once with ``ZeroRedundancyOptimizer(optimizer_class=Adam)``; then every rank
counts the bytes of its local optimizer's state (Adam's two moments), against one Adam
over every parameter (what each DDP rank keeps). Target: every rank within 5% of 1/N of it.
Bytes, not times: the figures are exact and the same on every machine.
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import start_report  # noqa: E402
from _ranks import on_ranks  # noqa: E402

import minitorch  # noqa: E402
import minitorch.distributed as dist  # noqa: E402
from minitorch import nn, optim  # noqa: E402
from minitorch.distributed.optim import ZeroRedundancyOptimizer  # noqa: E402
from minitorch.examples.charlm import TransformerLanguageModel  # noqa: E402

VOCAB, CONTEXT = 96, 64


def state_bytes(optimizer):
    """Bytes of the arrays an optimizer keeps per parameter (Adam: exp_avg and exp_avg_sq)."""
    return sum(a.nbytes for s in optimizer.state.values() for a in s.values() if isinstance(a, np.ndarray))


def one_step(model, optimizer, rank):
    rng = np.random.default_rng(rank)
    tokens = minitorch.tensor(rng.integers(0, VOCAB, size=(4, CONTEXT + 1)))
    logits, _ = model(tokens[:, :-1])
    optimizer.zero_grad()
    nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1)).backward()
    optimizer.step()


def worker(layers):
    dist.init_process_group("mpi")
    rank = dist.get_rank()
    minitorch.manual_seed(0)
    model = TransformerLanguageModel(VOCAB, layers=layers, context=CONTEXT)
    ddp = nn.parallel.DistributedDataParallel(model)
    zero = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=optim.Adam, lr=1e-3)
    one_step(ddp, zero, rank)
    per_rank = dist.current_group().allgather_object(state_bytes(zero.optim))
    full = optim.Adam(model.parameters(), lr=1e-3)  # what every DDP rank would keep
    one_step(model, full, rank)
    if rank == 0:
        params = sum(p.numel() for p in model.parameters())
        print(json.dumps({"ranks": dist.get_world_size(), "params": params, "per_rank": per_rank,
                          "ddp": state_bytes(full)}))
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.layers)
    start_report(1)
    print(f"\n## ZeRO-1: optimizer state per rank (transformer, {args.layers} blocks)\n")
    print("| ranks | parameters | Adam state per DDP rank | ZeRO-1 state per rank | 1/N of DDP's | worst rank vs 1/N |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in (2, 4):
        got = on_ranks(__file__, n, ["--layers", args.layers], timeout=600)
        share = got["ddp"] / n
        worst = max(abs(b / share - 1) for b in got["per_rank"])
        shown = ", ".join(f"{b:,}" for b in got["per_rank"])
        print(f"| {n} | {got['params']:,} | {got['ddp']:,} B | {shown} B | {share:,.0f} B | {worst:+.1%} "
              f"({'met' if worst <= 0.05 else 'missed'}: within 5%) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
