"""The headless digits job: a short run of each model, its output, and the --device check."""

import subprocess
import sys

import pytest

import minitorch
from minitorch.examples import digits


def test_mlp_learns_digits_in_three_epochs():
    lines = []
    result = digits.train("mlp", epochs=3, seed=0, progress=False, log=lines.append)
    assert len(result["history"]) == 3 and len(lines) == 3
    assert result["history"][-1]["loss"] < result["history"][0]["loss"]
    assert result["test_acc"] > 0.88
    assert "test acc" in lines[-1] and "s/epoch" in lines[-1]


def test_cnn_learns_digits_in_two_epochs():
    result = digits.train("cnn", epochs=2, seed=0, progress=False, log=lambda _: None)
    assert result["test_acc"] > 0.8


def test_same_seed_same_result():
    a = digits.train("mlp", epochs=1, seed=4, progress=False, log=lambda _: None)
    b = digits.train("mlp", epochs=1, seed=4, progress=False, log=lambda _: None)
    assert a["history"][0]["loss"] == b["history"][0]["loss"]


def test_command_line_prints_epochs_and_final_accuracy(capsys):
    assert digits.main(["--model", "mlp", "--epochs", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "epoch   2/2" in out and "final test accuracy" in out


@pytest.mark.skipif(minitorch.cuda.is_available(), reason="a GPU is present")
def test_cuda_without_gpu_is_a_clear_error():
    proc = subprocess.run(
        [sys.executable, "-m", "minitorch.examples.digits", "--device", "cuda", "--epochs", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "no usable GPU" in proc.stderr
