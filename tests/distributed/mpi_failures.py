"""Run on two ranks by ``test_mpi_failures.py``: ``mpiexec -n 2 python mpi_failures.py CASE TIMEOUT OUT_DIR``.

Each case is one way for ranks to disagree. Where the case catches the error, every rank
writes what it saw to ``OUT_DIR/rank<r>.json``, for the test to assert on (two ranks
printing at once would mix their lines); where it does not, the job must end on its own
(an uncaught exception aborts every rank).
"""

import json
import sys
import time
from pathlib import Path

import minitorch
import minitorch.distributed as dist

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


OUT = {"dir": Path(".")}


def report(**facts):
    (OUT["dir"] / f"rank{dist.get_rank()}.json").write_text(json.dumps(facts))


def caught(call):
    """Run ``call``; the DistributedError it raised (type and message), or None."""
    try:
        call()
    except dist.DistributedError as exc:
        return {"type": type(exc).__name__, "message": str(exc)}
    return None


def all_reduce_then_check_the_group_still_works(make):
    """All-reduce ``make(rank)``; then a matching all-reduce must still give the right sum."""
    rank = dist.get_rank()
    error = caught(lambda: dist.all_reduce(make(rank)))
    after = minitorch.ones(3)
    dist.all_reduce(after)
    report(error=error, after=after.tolist())


@case
def size_and_dtype_both_differ():  # 16 bytes each: MPI itself would add them up as garbage
    all_reduce_then_check_the_group_still_works(
        lambda r: minitorch.ones(4, dtype=minitorch.float32) if r == 0 else minitorch.ones(2, dtype=minitorch.float64)
    )


@case
def shapes_differ():
    all_reduce_then_check_the_group_still_works(lambda r: minitorch.ones(3 + r))


@case
def dtypes_differ():
    all_reduce_then_check_the_group_still_works(
        lambda r: minitorch.ones(4, dtype=minitorch.float32 if r == 0 else minitorch.float64)
    )


@case
def different_collectives():
    t = minitorch.ones(4)
    error = caught(lambda: dist.all_reduce(t) if dist.get_rank() == 0 else dist.broadcast(t, src=0))
    report(error=error)


@case
def one_rank_raises_before_a_collective():  # uncaught: the job must end, with rank 1's traceback
    if dist.get_rank() == 1:
        raise ValueError("rank 1 gave up before the all_reduce")
    dist.all_reduce(minitorch.ones(4))
    print("rank 0 returned from all_reduce", flush=True)


@case
def one_rank_is_late():  # rank 0 times out (uncaught) while rank 1 is still busy
    if dist.get_rank() == 1:
        time.sleep(30)
    dist.all_reduce(minitorch.ones(4))


@case
def a_matching_run_still_works():
    t = minitorch.tensor([1.0, 2.0]) * (dist.get_rank() + 1)
    dist.all_reduce(t)
    b = minitorch.tensor([float(dist.get_rank())] * 2)
    dist.broadcast(b, src=1)
    parts = [minitorch.zeros(2) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, t)
    objects = dist.current_group().allgather_object({"rank": dist.get_rank()})
    dist.barrier()
    report(sum=t.tolist(), broadcast=b.tolist(), gathered=[p.tolist() for p in parts], objects=objects)


if __name__ == "__main__":
    name, timeout, OUT["dir"] = sys.argv[1], float(sys.argv[2]), Path(sys.argv[3])
    dist.init_process_group("mpi", timeout=timeout)
    CASES[name]()
    dist.destroy_process_group()
