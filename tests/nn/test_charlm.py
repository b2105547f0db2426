"""The character-level language model example: a few steps of each model lower the loss."""

import pytest

from minitorch.examples import charlm


def test_corpus_ships_with_python():
    text = charlm.load_corpus()
    assert 200_000 <= len(text) <= 400_000
    assert 60 <= len(charlm.Vocab(text)) <= 100
    assert text == charlm.load_corpus()  # deterministic


@pytest.mark.parametrize("kind", ["lstm", "transformer"])
def test_a_few_steps_lower_the_loss(kind):
    lines = []
    corpus = charlm.load_corpus()[:60_000]
    result = charlm.train(kind, epochs=2, steps_per_epoch=12, batch_size=16, progress=False, log=lines.append,
                          corpus=corpus, sample_chars=20)  # fmt: skip
    first, last = result["history"][0], result["history"][-1]
    assert last["val_loss"] < first["val_loss"] < 4.6  # below chance (ln 90 = 4.5) after one epoch of 12 steps
    assert "val loss" in lines[-1] and len(result["samples"]) == 3
    assert all(s.startswith(p) for s, p in zip(result["samples"], ["The ", "Return ", "If the "]))


def test_command_line(capsys):
    assert charlm.main(["--model", "lstm", "--epochs", "1", "--steps", "2", "--no-progress", "--batch-size", "4"]) == 0
    out = capsys.readouterr().out
    assert "epoch   1/1" in out and "samples" in out
