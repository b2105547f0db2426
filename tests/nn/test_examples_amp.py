"""The digits job under mixed precision (``--amp``: autocast + GradScaler)."""

import minitorch
from minitorch.examples import digits


def test_amp_mlp_learns_as_well_as_float32_on_one_seed():
    # The 5-seed comparison (within 0.5 points on the mean) is bench/digits_accuracy.py --amp;
    # one short run only has to land within a few test images of float32.
    lines = []
    mixed = digits.train("mlp", epochs=4, seed=1, progress=False, log=lines.append, amp=True)
    plain = digits.train("mlp", epochs=4, seed=1, progress=False, log=lambda _: None)
    assert abs(mixed["test_acc"] - plain["test_acc"]) <= 0.015  # 5 of 359 test images
    assert mixed["test_acc"] > 0.9
    assert "loss scale 65536" in lines[-1] and "skipped" in lines[-1]
    assert all(p.dtype == minitorch.float32 for p in mixed["model"].parameters())  # float32 master weights
    assert [h["loss_scale"] for h in mixed["history"]] == [65536.0] * 4


def test_command_line_amp(capsys):
    assert digits.main(["--amp", "--epochs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "mixed precision (autocast + GradScaler)" in out
    assert "final loss scale" in out and "steps skipped" in out


def test_amp_runs_the_forward_pass_in_float16(monkeypatch):
    seen = []
    real_linear = minitorch.nn.functional.linear

    def spy(x, weight, bias=None):
        out = real_linear(x, weight, bias)
        seen.append(out.dtype)
        return out

    monkeypatch.setattr(minitorch.nn.functional, "linear", spy)
    digits.train("mlp", epochs=1, seed=0, progress=False, log=lambda _: None, amp=True)
    assert seen and set(seen) == {minitorch.float16}
