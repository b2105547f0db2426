"""What a compiled step refuses to replay, the guards that trigger a new trace, and ``explain``.

Never silently wrong: a step that hands a value to Python (``.item()``, ``bool(t)``,
printing...), changes a tensor in place outside an op, draws random numbers outside an op
or computes a tensor outside the recorded ops is not replayed; it runs eagerly and one
warning names the learner's line. ``fullgraph=True`` makes it an error.
"""

import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.jit import GraphBreakError, GraphBreakWarning
from minitorch.nn import functional as F


def setup(seed=0):
    minitorch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    return model, minitorch.optim.SGD(model.parameters(), lr=0.1)


def batch(seed, n=5):
    rng = np.random.default_rng(seed)
    return minitorch.tensor(rng.standard_normal((n, 4)).astype(np.float32)), minitorch.tensor(rng.integers(0, 3, n))


def train_step(model, opt, peek):
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        peek(loss)
        loss.backward()
        opt.step()
        return loss

    return step


PEEKS = {
    "item": lambda t: t.item(),
    "float": lambda t: float(t),
    "bool": lambda t: bool(t > 100),
    "tolist": lambda t: t.tolist(),
    "numpy": lambda t: t.detach().numpy(),
    "print": lambda t: repr(t),
    "format": lambda t: f"{t:.3f}",
}


def test_reading_grad_inside_the_step_is_a_graph_break():
    model, opt = setup()

    def step(x, y):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        model[0].weight.grad.data *= 0.5  # invisible to the tracer: so reading .grad breaks
        opt.step()

    compiled = minitorch.compile(step)
    with pytest.warns(GraphBreakWarning, match=r"reading \.grad"):
        compiled(*batch(0))
    assert next(iter(compiled.entries.values())).program is None


@pytest.mark.parametrize("name", list(PEEKS))
def test_reading_a_value_runs_the_step_eagerly_with_one_warning_at_the_learners_line(name):
    eager_model, eager_opt = setup()
    model, opt = setup()
    eager = train_step(eager_model, eager_opt, PEEKS[name])
    compiled = minitorch.compile(train_step(model, opt, PEEKS[name]))
    with pytest.warns(GraphBreakWarning) as caught:
        for i in range(4):
            a, b = eager(*batch(i)), compiled(*batch(i))
            assert a.data.tobytes() == b.data.tobytes()
    assert len(caught) == 1  # once, not once per step
    assert caught[0].filename == __file__  # the learner's line: the lambda above
    entry = next(iter(compiled.entries.values()))
    assert entry.program is None and compiled.traces == 1
    text = str(minitorch.explain(compiled))
    assert "runs eagerly" in text and "reads a value" in text and __file__ in text
    for p, q in zip(eager_model.parameters(), model.parameters()):
        assert p.data.tobytes() == q.data.tobytes()


def test_fullgraph_makes_a_graph_break_an_error():
    model, opt = setup()
    compiled = minitorch.compile(train_step(model, opt, PEEKS["item"]), fullgraph=True)
    with pytest.raises(GraphBreakError, match=r"\.item\(\) \(or float.*reads a value"):
        compiled(*batch(0))
    assert not compiled.entries  # nothing cached: the next call tries again
    assert minitorch.Tensor.item is minitorch.tensor_base.TensorBase.item  # the tracer put everything back
    assert "item" not in minitorch.Tensor.__dict__


def test_decorator_forms():
    model, opt = setup()

    @minitorch.compile(fullgraph=True)
    def step(x, y):
        return F.cross_entropy(model(x), y).detach()

    assert isinstance(step, minitorch.jit.CompiledFunction)
    assert step(*batch(0)).shape == ()


@pytest.mark.parametrize(
    "body, reason",
    [
        (lambda x: x.add_(1).sum(), "in-place change"),
        (lambda x: (x + minitorch.randn(*x.shape)).sum(), "random numbers drawn outside an op"),
        (lambda x: (x.argmax(1) == 0).float().sum(), "computed outside the recorded ops"),
    ],
    ids=["inplace", "randn", "argmax"],
)
def test_what_a_replay_could_not_repeat_is_a_graph_break(body, reason):
    inputs = [minitorch.tensor(np.random.default_rng(i).standard_normal((3, 4)).astype(np.float32)) for i in range(3)]
    minitorch.manual_seed(0)
    expected = [body(x.clone()).data.copy() for x in inputs]
    compiled = minitorch.compile(body)
    minitorch.manual_seed(0)
    with pytest.warns(GraphBreakWarning, match=reason):
        got = [compiled(x.clone()).data.copy() for x in inputs]
    assert [a.tobytes() for a in got] == [a.tobytes() for a in expected]  # eager every time: right every time
    assert next(iter(compiled.entries.values())).program is None


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_with_running_statistics_runs_eagerly_and_keeps_them_right(momentum):
    # The op updates the running statistics (arrays, not graph tensors) and the module bumps
    # its batch counter outside any op: a replay could repeat neither, so the step is eager.
    results = []
    for compiled in (False, True):
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6, momentum=momentum), nn.ReLU(), nn.Linear(6, 3))
        step = train_step(model, minitorch.optim.SGD(model.parameters(), lr=0.1), lambda loss: None)
        run = minitorch.compile(step) if compiled else step
        if compiled:
            with pytest.warns(GraphBreakWarning, match="BatchNorm got an array"):
                losses = [run(*batch(seed, 8)).item() for seed in range(4)]
        else:
            losses = [run(*batch(seed, 8)).item() for seed in range(4)]
        bn = model[1]
        results.append((losses, bn.running_mean.numpy().tobytes(), bn.running_var.numpy().tobytes(),
                        bn.num_batches_tracked.item()))  # fmt: skip
    assert results[0] == results[1] and results[1][3] == 4

def test_a_new_signature_traces_again_and_the_cache_has_a_size():
    compiled = minitorch.compile(lambda x: (x * 2).sum(), cache_size=2)
    for n in (2, 3, 2, 3):
        assert compiled(minitorch.ones(n)).item() == 2 * n
    assert compiled.traces == 2 and len(compiled.entries) == 2
    with pytest.warns(GraphBreakWarning, match="cache_size=2"):
        assert compiled(minitorch.ones(4)).item() == 8  # eager, still right
    assert compiled.traces == 2
    compiled(minitorch.ones(2, dtype=minitorch.float64))  # dtype is in the guard too
    assert len(compiled.entries) == 2


def test_module_settings_are_guards_eval_and_dropout_p():
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    compiled = minitorch.compile(lambda x: model(x).detach())
    x = minitorch.ones(2, 4)
    compiled(x)
    model.eval()
    with minitorch.no_grad():
        expected = model(x)
    assert compiled(x).data.tobytes() == expected.data.tobytes()  # eval: no dropout, traced anew
    assert compiled.traces == 2
    model.train()
    model[1].p = 0.0
    compiled(x)
    assert compiled.traces == 3


def test_a_parameter_given_a_new_array_is_seen():
    model, opt = setup()
    compiled = minitorch.compile(lambda x: model(x).detach())
    x, _ = batch(0)
    compiled(x)
    model[0].weight.data = np.zeros((8, 4), np.float32)
    with minitorch.no_grad():
        expected = model(x)
    assert compiled(x).data.tobytes() == expected.data.tobytes()
    assert compiled.traces == 2


def test_a_global_number_the_step_reads_is_a_guard():
    compiled = minitorch.compile(scaled)
    global SCALE
    x = minitorch.ones(3)
    assert compiled(x).item() == 6
    SCALE = 3.0
    try:
        assert compiled(x).item() == 9  # not the 2.0 of the first trace
    finally:
        SCALE = 2.0


SCALE = 2.0


def scaled(x):
    return (x * SCALE).sum()


def test_module_compile_replays_inference_and_keeps_training_eager():
    model, _ = setup()
    x, y = batch(0)
    with minitorch.no_grad():
        expected = model(x)
    model.compile()
    with minitorch.no_grad():
        for _ in range(3):
            assert model(x).data.tobytes() == expected.data.tobytes()
    entry = next(iter(model._compiled_forward.entries.values()))
    assert entry.program is not None and entry.replays == 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = F.cross_entropy(model(x), y)  # grad mode: a new signature, whose graph is used later
        loss.backward()
        loss2 = F.cross_entropy(model(x), y)
        loss2.backward()  # eager: the graph is there
    assert any("compile the whole training step" in str(w.message) for w in caught)
    assert model[0].weight.grad is not None
    assert "compile the whole training step" in str(minitorch.explain(model))


def test_explain_describes_the_program_and_its_guards():
    model, opt = setup()
    compiled = minitorch.compile(train_step(model, opt, lambda t: None))
    for i in range(3):
        compiled(*batch(i))
    info = minitorch.explain(compiled)
    assert info.graph_count == 1 and info.graph_break_count == 0
    text = str(info)
    for words in (
        "Linear x2",
        "ReLU",
        "SoftmaxCrossEntropy",
        "SGD.step",
        "SGD.zero_grad",
        "replayed 2 time(s)",
        "shape (5, 4)",
        "requires_grad=False",
        "grad_enabled=True",
    ):
        assert words in text, words
    with pytest.raises(TypeError, match="not compiled"):
        minitorch.explain(lambda: None)


def test_a_step_called_inside_a_traced_step_is_part_of_it():
    inner = minitorch.compile(lambda x: x * 3)
    outer = minitorch.compile(lambda x: inner(x).sum())
    for _ in range(3):
        assert outer(minitorch.ones(2)).item() == 6
    assert inner.traces == 0 and outer.traces == 1


def test_a_step_returning_a_python_number_is_not_replayed():
    calls = []

    def step(x):
        calls.append(1)
        return (x * 2).sum(), len(calls)

    compiled = minitorch.compile(step)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [compiled(minitorch.ones(2))[1] for _ in range(3)]
    assert results == [1, 2, 3]  # eager every time: the counter moves, as it does without compile
    assert any("returns a Python int" in str(w.message) for w in caught)


def test_a_leaf_made_inside_the_step_is_not_reused():
    def step(x):
        w = minitorch.ones(2, requires_grad=True)
        (w * x).sum().backward()
        return w

    compiled = minitorch.compile(step)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        first, second = compiled(minitorch.ones(2)), compiled(minitorch.ones(2))
    assert first is not second and second.grad.tolist() == [1.0, 1.0]


def test_a_step_under_autocast_is_bit_identical():
    def run(compiled):
        model, opt = setup()

        def step(x, y):
            opt.zero_grad()
            with minitorch.autocast("cpu"):
                loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        fn = minitorch.compile(step, fullgraph=True) if compiled else step
        losses = [fn(*batch(i)).data.tobytes() for i in range(5)]
        return losses, [p.data.tobytes() for p in model.parameters()], fn

    eager, compiled = run(False), run(True)
    assert eager[:2] == compiled[:2]
    assert "Cast" in str(minitorch.explain(compiled[2]))  # the float16 casts are recorded ops
