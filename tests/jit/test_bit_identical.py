"""A compiled training step gives the very bits of the eager step (issue 25).

100 steps of each model the course trains (the digits MLP and CNN, the char LSTM and the
one-block transformer, the last two at test sizes), once eagerly and once through
``minitorch.compile``, from the same seed and batches: every loss and every parameter after
the run must be equal, not close. The first call traces, the other 99 replay.
"""

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.examples.charlm import LSTMLanguageModel, TransformerLanguageModel
from minitorch.examples.digits import make_cnn, make_mlp
from minitorch.nn import functional as F

STEPS = 100


def digits_batches(image: bool, n=STEPS, batch=32):
    split = minitorch.datasets.load_digits()
    X, y = split.X_train.data, split.y_train.data
    rng = np.random.default_rng(0)
    out = []
    for _ in range(n):
        idx = rng.integers(0, len(X), batch)
        x = X[idx].reshape(batch, 1, 8, 8) if image else X[idx]
        out.append((minitorch.tensor(x), minitorch.tensor(y[idx])))
    return out


def text_batches(vocab=20, n=STEPS, batch=4, context=12):
    rng = np.random.default_rng(1)
    data = rng.integers(0, vocab, 2000)
    out = []
    for _ in range(n):
        starts = rng.integers(0, len(data) - context - 1, batch)
        rows = starts[:, None] + np.arange(context)
        out.append((minitorch.tensor(data[rows]), minitorch.tensor(data[rows + 1])))
    return out


def train(make_model, make_opt, batches, loss_of, compiled, scheduler=None, clip=None):
    """Losses of every step and the final parameters, eager or compiled."""
    minitorch.manual_seed(0)
    model = make_model()
    opt = make_opt(model.parameters())
    sched = scheduler(opt) if scheduler else None

    def step(x, y):
        opt.zero_grad()
        loss = loss_of(model, x, y)
        loss.backward()
        if clip is not None:
            nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        if sched is not None:
            sched.step()
        return loss

    run = minitorch.compile(step, fullgraph=True) if compiled else step
    losses = [run(x, y).data.copy() for x, y in batches]
    return losses, [p.data.copy() for p in model.parameters()], run


def classify(model, x, y):
    return F.cross_entropy(model(x), y)


def language(model, x, y):
    logits, _ = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


CASES = {
    "mlp": (make_mlp, lambda p: minitorch.optim.Adam(p, lr=1e-2), lambda: digits_batches(False), classify),
    "cnn": (make_cnn, lambda p: minitorch.optim.SGD(p, lr=0.05, momentum=0.9), lambda: digits_batches(True), classify),
    "lstm": (
        lambda: LSTMLanguageModel(20, embed=8, hidden=16),
        lambda p: minitorch.optim.Adam(p, lr=3e-3),
        text_batches,
        language,
    ),
    "transformer": (
        lambda: TransformerLanguageModel(20, d_model=16, heads=2, layers=1, context=12),
        lambda p: minitorch.optim.AdamW(p, lr=3e-3),
        text_batches,
        language,
    ),
}


def assert_same_bits(eager, compiled):
    (losses_e, params_e, _), (losses_c, params_c, run) = eager, compiled
    assert len(losses_e) == len(losses_c) == STEPS
    for i, (a, b) in enumerate(zip(losses_e, losses_c)):
        assert a.tobytes() == b.tobytes(), f"loss of step {i}: eager {a}, compiled {b}"
    for i, (a, b) in enumerate(zip(params_e, params_c)):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"parameter {i} differs"
    entry = next(iter(run.entries.values()))
    assert run.traces == 1 and entry.program is not None and entry.replays == STEPS - 1


@pytest.mark.parametrize("name", list(CASES))
def test_compiled_training_is_bit_identical_to_eager(name):
    make_model, make_opt, batches, loss_of = CASES[name]
    data = batches()
    eager = train(make_model, make_opt, data, loss_of, compiled=False)
    compiled = train(make_model, make_opt, data, loss_of, compiled=True)
    assert_same_bits(eager, compiled)
    assert not np.array_equal(eager[0][0], eager[0][-1])  # it trained: the loss moved


def test_dropout_draws_fresh_numbers_on_every_replay_as_eager_does():
    make = lambda: nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 10))  # noqa: E731
    data = digits_batches(False)
    eager = train(make, lambda p: minitorch.optim.SGD(p, lr=0.1), data, classify, compiled=False)
    compiled = train(make, lambda p: minitorch.optim.SGD(p, lr=0.1), data, classify, compiled=True)
    assert_same_bits(eager, compiled)
    assert compiled[2].entries and next(iter(compiled[2].entries.values())).program.random_ops


def test_a_scheduler_and_adams_step_count_change_on_every_replay():
    sched = lambda opt: minitorch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)  # noqa: E731
    data = digits_batches(False)
    adam = lambda p: minitorch.optim.Adam(p, lr=1e-2)  # noqa: E731
    eager = train(make_mlp, adam, data, classify, compiled=False, scheduler=sched)
    compiled = train(make_mlp, adam, data, classify, compiled=True, scheduler=sched)
    assert_same_bits(eager, compiled)


def test_clip_grad_norm_runs_again_on_every_replay():
    make_model, make_opt, batches, loss_of = CASES["lstm"]
    data = batches()
    eager = train(make_model, make_opt, data, loss_of, compiled=False, clip=0.05)
    compiled = train(make_model, make_opt, data, loss_of, compiled=True, clip=0.05)
    assert_same_bits(eager, compiled)
    calls = [s.label for s in next(iter(compiled[2].entries.values())).program.steps if hasattr(s, "label")]
    assert calls == ["Adam.zero_grad", "clip_grad_norm_", "Adam.step"]
