"""Describe the machine a benchmark ran on (CPU model, cores, NumPy/BLAS, PyTorch)."""

import os
import platform
import subprocess

import numpy as np


def cpu_model():
    """The CPU model name from lscpu (or platform.processor() when lscpu is missing)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return platform.processor() or "unknown CPU"


def blas_info():
    """Which BLAS NumPy uses and with how many threads (threadpoolctl when available)."""
    try:
        from threadpoolctl import threadpool_info

        pools = [f"{p.get('internal_api')} {p.get('version')} ({p.get('num_threads')} threads)"
                 for p in threadpool_info() if p.get("user_api") == "blas"]
        if pools:
            return ", ".join(pools)
    except ImportError:
        pass
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version')}"
    except Exception:
        return "unknown BLAS"


def describe():
    """One paragraph for docs/benchmarks.md."""
    lines = [
        f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores visible",
        f"- Python {platform.python_version()}, NumPy {np.__version__}, BLAS: {blas_info()}",
    ]
    try:
        import torch

        lines.append(f"- PyTorch {torch.__version__} ({torch.get_num_threads()} intra-op threads)")
    except ImportError:
        lines.append("- PyTorch not installed")
    return "\n".join(lines)


def set_threads(n):
    """Use ``n`` threads in NumPy's BLAS and in PyTorch alike (None: leave the defaults)."""
    if n is None:
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(n)
    try:
        import torch

        torch.set_num_threads(n)
    except ImportError:
        pass


def start_report(threads):
    """Apply the thread setting, then print the "## Machine" block every benchmark opens with."""
    set_threads(threads)
    print("## Machine\n")
    print(describe())
    if threads:
        print(f"- threads limited to {threads} for NumPy's BLAS and PyTorch")


if __name__ == "__main__":
    print(describe())
