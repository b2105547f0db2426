"""Compiled steps that differentiate a gradient (issue 35): ``autograd.grad(..., create_graph=True)``.

A WGAN-GP critic step (the gradient penalty of ``autograd.grad(critic(x_hat), x_hat,
create_graph=True)``) and a double-backpropagation step (a penalty on the parameters'
gradient) are traced: the pass is one ``GraphPassStep`` that each replay runs eagerly with its
ops numbered as the trace's (jit/graph_pass.py), and 100 steps give the eager bits. What the
tracer cannot write down runs eagerly with the reason, never wrong.
"""

import warnings

import numpy as np
import pytest

import minitorch
from minitorch import autograd, nn
from minitorch.autograd import Function
from minitorch.jit import GraphBreakWarning
from minitorch.jit.graph_pass import GraphPassStep, PassDiverged

STEPS = 100


class Affine(nn.Module):
    """x @ W + b, written with the ops that differentiate twice."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(minitorch.randn(n_in, n_out) * (1 / n_in) ** 0.5)
        self.bias = nn.Parameter(minitorch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


def critic():
    return nn.Sequential(Affine(2, 16), nn.Tanh(), Affine(16, 16), nn.ReLU(), Affine(16, 1))


def toy_batches(n=STEPS, batch=16):
    rng = np.random.default_rng(0)
    out = []
    for _ in range(n):
        real = rng.normal(size=(batch, 2)).astype(np.float32)
        fake = (rng.normal(size=(batch, 2)) * 0.5 + 1).astype(np.float32)
        eps = rng.random((batch, 1)).astype(np.float32)
        out.append(tuple(minitorch.tensor(a) for a in (real, fake, eps)))
    return out


def wgan_gp_step(model, opt, penalty=10.0):
    """The critic's step of WGAN-GP (Gulrajani et al.): Wasserstein loss plus the gradient penalty."""

    def step(real, fake, eps):
        opt.zero_grad()
        x_hat = (eps * real + (1 - eps) * fake).requires_grad_()
        d_hat = model(x_hat)
        (g,) = autograd.grad(d_hat, x_hat, grad_outputs=minitorch.ones_like(d_hat), create_graph=True)
        gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
        loss = model(fake).mean() - model(real).mean() + penalty * gp
        loss.backward()
        opt.step()
        return loss

    return step


def double_backprop_step(model, opt):
    """A loss plus the squared norm of its gradient w.r.t. the parameters (double backpropagation)."""

    def step(real, fake, eps):
        opt.zero_grad()
        loss = ((model(real) - model(fake)) ** 2).mean()
        grads = autograd.grad(loss, list(model.parameters()), create_graph=True)
        total = loss + 0.1 * sum((g * g).sum() for g in grads)
        total.backward()
        opt.step()
        return total

    return step


def train(make_step, compiled, batches, fullgraph=True):
    minitorch.manual_seed(0)
    model = critic()
    opt = minitorch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.5, 0.9))
    step = make_step(model, opt)
    run = minitorch.compile(step, fullgraph=fullgraph) if compiled else step
    losses = [run(*b).data.tobytes() for b in batches]
    return losses, [p.data.tobytes() for p in model.parameters()], run


def _entry(compiled):
    return next(iter(compiled.entries.values()))


@pytest.mark.parametrize("make_step", [wgan_gp_step, double_backprop_step], ids=["wgan-gp", "double-backprop"])
def test_a_step_with_create_graph_is_traced_and_bit_identical_to_eager(make_step):
    batches = toy_batches()
    eager = train(make_step, False, batches)
    compiled = train(make_step, True, batches)
    assert compiled[:2] == eager[:2]  # every loss and every parameter: the same bits
    assert eager[0][0] != eager[0][-1]  # it trained
    run = compiled[2]
    entry = _entry(run)
    assert run.traces == 1 and entry.program is not None and entry.replays == STEPS - 1
    passes = [s for s in entry.program.steps if type(s) is GraphPassStep]
    assert len(passes) == 1 and passes[0].ops
    text = str(minitorch.explain(run))
    assert "autograd.grad(create_graph=True): run eagerly inside each replay" in text
    assert "replayed op by op" in text  # not lowered: the pass is eager Python


def test_the_listing_shows_the_pass_and_the_backward_through_its_ops():
    from minitorch.jit.listing import listing

    run = train(wgan_gp_step, True, toy_batches(3))[2]
    text = listing(_entry(run).program)
    assert "autograd.grad(create_graph=True)" in text
    assert "Norm2Backward" not in text and "Norm2.backward" in text


def test_backward_with_create_graph_runs_eagerly_with_the_reason():
    def make(model, opt):
        def step(real, fake, eps):
            opt.zero_grad()
            loss = model(real).pow(2).mean()
            loss.backward(create_graph=True)
            opt.step()
            return loss.detach()

        return step

    batches = toy_batches(5)
    eager = train(make, False, batches)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = train(make, True, batches, fullgraph=False)
    assert compiled[:2] == eager[:2]
    assert _entry(compiled[2]).program is None
    assert any("create_graph=True" in str(w.message) for w in caught if w.category is GraphBreakWarning)


def test_grad_outputs_that_require_grad_are_a_graph_break():
    def make(model, opt):
        def step(real, fake, eps):
            opt.zero_grad()
            x = real.clone().requires_grad_()
            out = model(x)
            v = (out * 0 + 1).detach().requires_grad_()
            (g,) = autograd.grad(out, x, grad_outputs=v, create_graph=True)
            loss = (g * g).mean() + out.mean()
            loss.backward()
            opt.step()
            return loss.detach()

        return step

    batches = toy_batches(4)
    eager = train(make, False, batches)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = train(make, True, batches, fullgraph=False)
    assert compiled[:2] == eager[:2]
    assert _entry(compiled[2]).program is None
    assert any("grad_outputs" in str(w.message) for w in caught)


CHOICE = [True]  # read by the backward below, invisible to the guards


class Moody(Function):
    """x**2 whose backward takes one of two op sequences (a global decides): a pass the trace cannot promise."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x + x) if CHOICE[0] else (grad * x) * 2


def test_a_replayed_pass_that_applies_other_ops_stops_with_an_error():
    x = minitorch.tensor([1.0, 2.0, 3.0])

    def step(x):
        w = x.clone().requires_grad_()
        (g,) = autograd.grad(Moody.apply(w).sum(), w, create_graph=True)
        return g.sum().detach()

    compiled = minitorch.compile(step, fullgraph=True)
    assert compiled(x).item() == 12.0 and compiled(x).item() == 12.0  # traced, replayed
    CHOICE[0] = False
    try:
        with pytest.raises(PassDiverged, match="run this step eagerly"):
            compiled(x)
    finally:
        CHOICE[0] = True
