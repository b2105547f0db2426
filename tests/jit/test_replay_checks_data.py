"""A replay checks what depends on the data, as the eager step does: never silently wrong.

The checks that depend on values (class labels in range, ignore_index rows, embedding and
gather indices) live in the ops' forward, so a replayed program runs them on every call.
"""

import warnings

import pytest
from training_step import training_step

import minitorch
import minitorch.nn.functional as F
from minitorch.errors import MiniTorchIndexError


def _compiled_step():
    minitorch.manual_seed(0)
    model = minitorch.nn.Linear(4, 3)
    opt = minitorch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: every call sees the same weights
    step = training_step(model, opt)

    return model, minitorch.compile(step, fullgraph=True)


def test_a_replay_masks_ignore_index_labels_as_the_eager_step():
    model, step = _compiled_step()
    x = minitorch.randn(5, 4)
    step(x, minitorch.tensor([0, 1, 2, 0, 1]))  # the trace: every label a class
    step(x, minitorch.tensor([0, 1, 2, 0, 1]))  # a replay
    labels = minitorch.tensor([0, 1, -100, 0, 1])
    assert step(x, labels).item() == F.cross_entropy(model(x), labels).item()


@pytest.mark.parametrize("bad", [-1, 7])
def test_a_replay_refuses_a_label_out_of_range(bad):
    _, step = _compiled_step()
    x = minitorch.randn(5, 4)
    for _ in range(2):
        step(x, minitorch.tensor([0, 1, 2, 0, 1]))
    with pytest.raises(MiniTorchIndexError, match="target values must be in"):
        step(x, minitorch.tensor([0, 1, 2, 0, bad]))


def test_a_replay_refuses_an_embedding_index_out_of_range():
    emb = minitorch.nn.Embedding(5, 2)
    opt = minitorch.optim.SGD(emb.parameters(), lr=0.1)

    def step(i):
        opt.zero_grad()
        loss = emb(i).sum()
        loss.backward()
        opt.step()
        return loss

    step = minitorch.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            step(minitorch.tensor([0, 1]))
        with pytest.raises(MiniTorchIndexError, match="out of range"):
            step(minitorch.tensor([0, -1]))
