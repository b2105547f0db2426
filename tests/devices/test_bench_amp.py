"""``bench/amp.py`` runs anywhere: tiny sizes on the CPU, the GPU rows skipped with a reason without one.

Timings are not checked here (the script measures them; docs/benchmarks.md records them).
"""

import importlib.util
from pathlib import Path

import minitorch

BENCH = Path(__file__).resolve().parents[2] / "bench" / "amp.py"


def test_runs_and_prints_a_row_per_measurement(capsys):
    spec = importlib.util.spec_from_file_location("bench_amp", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = module.main(["--sizes", "32", "--batch", "8", "--hidden", "8", "--repeats", "1", "--no-torch"])
    out = capsys.readouterr().out
    labels = [label for _, label, *_ in rows]
    assert "MiniTorch matmul 32x32" in labels and "NumPy's own float16 @ 32x32" in labels
    assert any(label.startswith("MiniTorch MLP step") for label in labels)
    assert "| float16 / float32 |" in out
    if not minitorch.cuda.is_available():
        assert "| cuda | all rows | - | - | - | skipped: no usable GPU" in out


def test_gpu_rows_run_on_the_fake_gpu(monkeypatch, capsys):

    import fake_cupy
    from fake_cupy import FakeCupy

    from minitorch import backends

    fake_cupy.install(monkeypatch, FakeCupy())
    backends.reset_probes()
    try:
        spec = importlib.util.spec_from_file_location("bench_amp", BENCH)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        rows = module.main(["--devices", "cuda", "--sizes", "16", "--batch", "8", "--hidden", "8", "--repeats", "1",
                            "--no-torch"])
    finally:
        backends.reset_probes()
    assert [device for device, *_ in rows] == ["cuda", "cuda"]
    assert all(t32 is not None and t16 is not None for _, _, t32, t16, _ in rows)
