"""Run on two ranks by ``test_mpi_leaving.py``: ``mpiexec -n 2 python mpi_leaving.py CASE TIMEOUT``.

In each case rank 1 leaves in its own way while rank 0 still calls collectives (or, in the
last cases, while both end normally). Rank 0 prints what it got, so the test can see that
it never got past a collective rank 1 left.
"""

import os
import sys

import minitorch
import minitorch.distributed as dist


def collectives(n):
    """``n`` all-reduces; each rank prints what the last one gave."""
    t = minitorch.ones(3)
    for _ in range(n):
        dist.all_reduce(t)
    print(f"rank {dist.get_rank()} got {t.tolist()}", flush=True)


def main(case):
    """Rank 1 leaves as ``case`` says; rank 0 runs two all-reduces."""
    rank = dist.get_rank()
    if rank == 1:
        if case == "system_exit":
            raise SystemExit("rank 1 leaves")  # what sys.exit("...") and argparse do
        if case == "system_exit_0":
            sys.exit(0)
        if case == "os_exit":
            os._exit(3)  # no Python exit at all: no atexit, no finalize
        if case == "return_early":
            collectives(1)  # one of rank 0's two, then main returns: the script ends
            return
        if case == "destroy_early":
            dist.destroy_process_group()
            return
    collectives(2 if case not in ("all_end", "all_destroy") else 1)
    if case == "all_destroy":
        dist.destroy_process_group()


if __name__ == "__main__":
    dist.init_process_group("mpi", timeout=float(sys.argv[2]))
    main(sys.argv[1])
