"""Memory and CPU limits per learner server, through Linux cgroups, where the hub may set them.

JupyterHub's LocalProcessSpawner documents ``mem_limit``/``cpu_limit`` but does not enforce
them. Here each server (and so its kernels and terminals) is put into a cgroup of its own,
below the hub's own cgroup: cgroup v2 (``memory.max``, ``cpu.max``) or v1 (``memory`` and
``cpu`` hierarchies). Where neither can be written (an unprivileged container), nothing is
enforced and ``supported()`` says so; the hub logs it at start.
"""

import os
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")
PERIOD_US = 100_000


def _own_path(controller):
    """The hub's own cgroup path in ``controller`` ('' for v2's unified hierarchy)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controllers.split(",") == [controller] or (controller == "" and controllers == ""):
            return path.lstrip("/")
    return None


def _v2():
    return (CGROUP / "cgroup.controllers").exists()


def _group_dirs(name):
    """The cgroup folders of server ``name``: {kind: folder}."""
    if _v2():
        own = _own_path("")
        return {"unified": CGROUP / own / f"minitorch-{name}"} if own is not None else {}
    dirs = {}
    for controller in ("memory", "cpu"):
        own = _own_path(controller)
        if own is not None and (CGROUP / controller).is_dir():
            dirs[controller] = CGROUP / controller / own / f"minitorch-{name}"
    return dirs


def supported():
    """Which limits this machine lets the hub enforce: a subset of {'memory', 'cpu'}."""
    found = set()
    for kind, folder in _group_dirs("probe").items():
        try:
            folder.mkdir(exist_ok=True)
            folder.rmdir()
        except OSError:
            continue
        found |= {"memory", "cpu"} if kind == "unified" else {kind}
    return found


def _write(path, value):
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def preexec(name, mem_limit, cpu_limit):
    """A function (run in the child before it becomes the learner) that enters the limits."""
    dirs = {}
    for kind, folder in _group_dirs(name).items():
        try:
            folder.mkdir(exist_ok=True)
        except OSError:
            continue
        dirs[kind] = folder
        if kind == "unified":
            _write(folder.parent / "cgroup.subtree_control", "+memory +cpu")
            if mem_limit:
                _write(folder / "memory.max", str(int(mem_limit)))
            if cpu_limit:
                _write(folder / "cpu.max", f"{int(cpu_limit * PERIOD_US)} {PERIOD_US}")
        elif kind == "memory" and mem_limit:
            _write(folder / "memory.limit_in_bytes", str(int(mem_limit)))
        elif kind == "cpu" and cpu_limit:
            _write(folder / "cpu.cfs_period_us", str(PERIOD_US))
            _write(folder / "cpu.cfs_quota_us", str(int(cpu_limit * PERIOD_US)))

    def enter():
        for folder in dirs.values():
            _write(folder / "cgroup.procs", str(os.getpid()))

    return enter


def remove(name):
    """Remove server ``name``'s cgroups (after its processes are gone; a busy one stays)."""
    for folder in _group_dirs(name).values():
        try:
            folder.rmdir()
        except OSError:
            pass
