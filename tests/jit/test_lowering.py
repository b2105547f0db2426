"""The lowered replay (jit/lowering.py): a step written out as its fast kernels' calls on buffers.

Bit-identity over whole trainings is tests/jit/test_bit_identical.py; here: which programs
are lowered, that what leaves a lowered step is never overwritten by the next call, and
that what the lowering decided at the trace (the labels' path, Adam's flat update, a
parameter without hooks) is checked again on every replay.
"""

import re

import numpy as np
import pytest
from training_step import training_step

import minitorch
from minitorch import nn
from minitorch.kernels import use_fast_kernels
from minitorch.kernels.cpu import activations
from minitorch.kernels.cpu import cross_entropy as cross_entropy_kernel
from minitorch.kernels.cpu import linear as linear_kernel


@pytest.fixture
def fast_kernels():
    """The lines written out for Linear and the cross-entropy are their fast kernels' calls:
    eager runs those (and the lowering writes them out) only with the fast kernels on, as
    they are unless MINITORCH_FAST_KERNELS=0 says otherwise."""
    with use_fast_kernels(True):
        yield


def _program(step):
    return next(iter(step.entries.values())).program


def _setup(make_model=None, make_opt=None):
    minitorch.manual_seed(0)
    model = (make_model or (lambda: nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))))()
    opt = (make_opt or (lambda p: minitorch.optim.Adam(p, lr=1e-2)))(model.parameters())
    step = training_step(model, opt)

    return model, opt, step


def _batches(n=6):
    rng = np.random.default_rng(0)
    return [(minitorch.tensor(rng.standard_normal((5, 6), dtype=np.float32)),
             minitorch.tensor(rng.integers(0, 3, 5))) for _ in range(n)]  # fmt: skip


@pytest.mark.usefixtures("fast_kernels")
def test_an_mlp_step_is_written_out_as_its_fast_kernels_calls_on_buffers():
    _, _, step = _setup()
    compiled = minitorch.compile(step)
    batches = _batches(3)
    compiled(*batches[0])
    assert _program(compiled).lowered is None  # lowered at the first replay, not by the trace
    for x, y in batches[1:]:
        compiled(x, y)
    program = _program(compiled)
    assert program.lowering_refused is None and program.to_lower is None
    source = program.lowered.source
    for call in ("linear_forward(", "relu(", "softmax_xent_rows(", "softmax_xent_grad(", "relu_backward("):
        assert call in source
    assert "out=buf" in source and not re.search(r"\bop\d+\(", source)  # no op called as written
    assert program.lowered.kernels == 4 and program.lowered.buffers > 0 and program.lowered.called == []
    assert "written out" in str(minitorch.explain(compiled))
    # the very functions the registered kernels run eagerly, not a copy of their math
    names = program.lowered.replay.__globals__
    assert names["linear_forward"] is linear_kernel.linear_forward
    assert names["relu_backward"] is activations.relu_backward
    assert names["softmax_xent_rows"] is cross_entropy_kernel.softmax_xent_rows


@pytest.mark.parametrize("activation", [nn.ReLU, nn.Tanh])
def test_with_the_fast_kernels_off_each_op_is_called_as_written_with_the_eager_bits(activation):
    make = lambda: nn.Sequential(nn.Linear(6, 8), activation(), nn.Linear(8, 3))  # noqa: E731
    runs = []
    with use_fast_kernels(False):
        for compiled in (False, True):
            model, _, step = _setup(make)
            run = minitorch.compile(step, fullgraph=True) if compiled else step
            losses = [run(x, y).data.tobytes() for x, y in _batches()]
            runs.append((losses, [p.data.tobytes() for p in model.parameters()]))
    assert runs[0] == runs[1]
    lowered = _program(run).lowered
    assert lowered is not None and lowered.kernels == 0
    assert [c.split(" ")[0] for c in lowered.called] == ["Linear", activation.__name__, "Linear", "SoftmaxCrossEntropy"]


def test_outputs_and_gradients_of_a_replay_are_fresh_arrays():
    model, _, step = _setup()
    compiled = minitorch.compile(step)
    losses, grads = [], []
    for x, y in _batches():
        losses.append(compiled(x, y))
        grads.append(model[0].weight.grad)
    model2, _, step2 = _setup()
    for (x, y), loss, grad in zip(_batches(), losses, grads):  # eager, for the values each call gave
        assert step2(x, y).item() == loss.item()
        assert np.array_equal(model2[0].weight.grad.data, grad.data)
    assert len({id(g.data) for g in grads}) == len(grads)


def test_a_state_dict_loaded_between_replays_is_what_the_next_update_uses():
    results = []
    for compiled in (False, True):
        _, opt, step = _setup()
        run = minitorch.compile(step) if compiled else step
        batches = _batches()
        for x, y in batches[:3]:
            run(x, y)
        saved = opt.state_dict()
        for x, y in batches[3:]:
            run(x, y)
        opt.load_state_dict(saved)  # new state arrays: the flat buffers are no longer them
        results.append([run(x, y).item() for x, y in batches])
    assert results[0] == results[1]


def test_a_hook_added_to_a_parameter_between_replays_runs():
    model, _, step = _setup()
    compiled = minitorch.compile(step)
    batches = _batches()
    for x, y in batches[:3]:
        compiled(x, y)
    seen = []
    model[0].bias.register_hook(lambda g: seen.append(g.shape))
    compiled(*batches[3])
    assert seen == [(8,)]


def test_sgd_steps_are_written_out_with_the_optimizer_called_as_python():
    _, _, step = _setup(make_opt=lambda p: minitorch.optim.SGD(p, lr=0.1, momentum=0.9))
    compiled = minitorch.compile(step)
    for x, y in _batches(3):
        compiled(x, y)
    program = _program(compiled)
    assert program.lowered is not None and "call" in program.lowered.source


@pytest.mark.usefixtures("fast_kernels")
def test_a_tanh_mlp_with_sgd_momentum_is_lowered_and_gives_the_eager_bits():
    make = lambda: nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))  # noqa: E731
    sgd = lambda p: minitorch.optim.SGD(p, lr=0.1, momentum=0.9)  # noqa: E731
    runs = []
    for compiled in (False, True):
        model, _, step = _setup(make, sgd)
        run = minitorch.compile(step, fullgraph=True) if compiled else step
        losses = [run(x, y).data.tobytes() for x, y in _batches()]
        runs.append((losses, [p.data.tobytes() for p in model.parameters()]))
    assert runs[0] == runs[1]
    assert _program(run).lowered is not None and "tanh(" in _program(run).lowered.source


@pytest.mark.parametrize("rows", [1, 7, 29, 64, 200])
def test_the_written_out_ops_give_the_eager_gradients_for_any_batch_size(rows):
    # A kernel must make the eager op's own calls: the bias gradient is blas_sums.sum_leading (a
    # product with ones), whose bits differ from x.sum(axis=0) for some batch sizes (7, 64).
    grads = []
    for compiled in (False, True):
        model, _, step = _setup(make_opt=lambda p: minitorch.optim.SGD(p, lr=0.0))
        run = minitorch.compile(step, fullgraph=True) if compiled else step
        rng = np.random.default_rng(rows)
        for _ in range(3):  # trace, first replay (op by op), lowered replay
            x = minitorch.tensor(rng.standard_normal((rows, 6), dtype=np.float32))
            run(x, minitorch.tensor(rng.integers(0, 3, rows)))
        grads.append([p.grad.data.tobytes() for p in model.parameters()])
    assert _program(run).lowered is not None
    assert grads[0] == grads[1]


def test_the_generated_code_can_call_only_the_kernels_functions_and_the_op_s_own():
    # One formula per op: jit/kernels.py writes no math of its own, so the names the generated
    # code may call are the registered kernels' functions (kernels/cpu/), the op's reduction
    # helpers (functions/) and asarray; each writer belongs to a registered kernel.
    from minitorch.jit import kernels as jit_kernels
    from minitorch.kernels import all_kernels

    for name, value in jit_kernels.NAMESPACE.items():
        module = getattr(value, "__module__", "")
        assert module.startswith(("minitorch.kernels.cpu.", "minitorch.functions.")) or value is np.asarray, name
    registered = all_kernels()
    assert all(any(kernel is k for k in registered) for kernel in jit_kernels.WRITERS)


def _sum_of_squares_step(model, opt, transposed):
    def step(x):
        opt.zero_grad()
        out = model(x.transpose(0, 1) if transposed else x)
        loss = (out * out).sum()
        loss.backward()
        opt.step()
        return loss

    return step


@pytest.mark.usefixtures("fast_kernels")
@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "a-transposed-view"])
def test_linears_on_a_batch_of_sequences_are_written_out_with_the_eager_bits(transposed):
    # Linear's kernel on (N, L, features): one stacked product each way; a transposed input is
    # no stack (NumPy's matmul runs), and its gradient is C-ordered as eager's is.
    make = lambda: nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))  # noqa: E731
    sgd = lambda p: minitorch.optim.SGD(p, lr=0.1)  # noqa: E731
    rng = np.random.default_rng(3)
    batches = [minitorch.tensor(rng.standard_normal((5, 2, 6), dtype=np.float32), requires_grad=True) for _ in range(4)]
    runs = []
    for compiled in (False, True):
        minitorch.manual_seed(0)
        model = make()
        step = _sum_of_squares_step(model, sgd(model.parameters()), transposed)
        run = minitorch.compile(step, fullgraph=True) if compiled else step
        losses = [run(x).data.tobytes() for x in batches]
        inputs = [x.grad.data.tobytes() for x in batches]  # through the first Linear's grad_x
        runs.append((losses, inputs, [p.data.tobytes() for p in model.parameters()]))
        for x in batches:
            x.grad = None
    assert runs[0] == runs[1]
    lowered = _program(run).lowered
    assert lowered is not None and lowered.source.count("linear_forward(") == 2
    assert "linear_grad_x(" in lowered.source
