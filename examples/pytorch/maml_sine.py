"""MAML on sine regression: learn an initialisation that one gradient step adapts to a new sine wave.

In the style of the sine experiment of "Model-Agnostic Meta-Learning" (Finn et al., 2017):
each task is a sine wave ``a * sin(x - phase)`` with a random amplitude and phase; a small
MLP, applied functionally with explicit weights, takes one SGD step on ten points of a task
(the inner step), and the meta-update trains the initial weights so that the adapted weights
fit the task well. The inner step is differentiated through:

    grads = torch.autograd.grad(loss, params, create_graph=True)
    fast = [p - inner_lr * g for p, g in zip(params, grads)]

so the meta-gradient contains second derivatives of the inner loss (a gradient of a
gradient). Runs unchanged on PyTorch and on MiniTorch (``python -m minitorch.run_as_torch
maml_sine.py``).

Float32, as MAML is trained, seeded with ``torch.manual_seed`` (MiniTorch draws PyTorch's
numbers). It prints the meta-loss of the first iterations, then its mean over every 50,
and then, on ten held-out tasks, the loss before adaptation and after 1 and 10 inner steps,
against the same steps taken from a model of the same size trained on all tasks at once
without the inner step (one step from MAML's weights cuts the error to a third; from the
baseline's, it hardly moves).
"""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)

INNER_LR, META_LR = 0.01, 1e-2
META_BATCH, K_SHOT, ITERATIONS = 5, 10, 300


def sample_tasks(n):
    """n sine waves: amplitudes in [0.1, 5], phases in [0, pi]."""
    amplitude = 0.1 + 4.9 * torch.rand(n)
    phase = math.pi * torch.rand(n)
    return amplitude, phase


def sample_points(amplitude, phase, k):
    """k points of one task, x uniform in [-5, 5]."""
    x = 10 * torch.rand(k, 1) - 5
    return x, amplitude * torch.sin(x - phase)


def init_params():
    """A 1-40-40-1 MLP's weights as a plain list, drawn as nn.Linear draws its own."""
    params = []
    for fan_in, fan_out in ((1, 40), (40, 40), (40, 1)):
        bound = 1 / math.sqrt(fan_in)
        params.append(torch.empty(fan_out, fan_in).uniform_(-bound, bound).requires_grad_())
        params.append(torch.empty(fan_out).uniform_(-bound, bound).requires_grad_())
    return params


def forward(params, x):
    """The MLP with the weights it is given (ReLU between the layers)."""
    w1, b1, w2, b2, w3, b3 = params
    h = F.relu(F.linear(x, w1, b1))
    h = F.relu(F.linear(h, w2, b2))
    return F.linear(h, w3, b3)


def adapt(params, x, y, steps, create_graph):
    """``steps`` SGD steps on (x, y) from ``params``; with create_graph the steps stay differentiable."""
    for _ in range(steps):
        loss = F.mse_loss(forward(params, x), y)
        grads = torch.autograd.grad(loss, params, create_graph=create_graph)
        params = [p - INNER_LR * g for p, g in zip(params, grads)]
    return params


# --- meta-training ----------------------------------------------------------------------
params = init_params()
meta_opt = torch.optim.Adam(params, lr=META_LR)
losses_so_far = []
for iteration in range(1, ITERATIONS + 1):
    meta_loss = 0.0
    for amplitude, phase in zip(*sample_tasks(META_BATCH)):
        x_support, y_support = sample_points(amplitude, phase, K_SHOT)
        x_query, y_query = sample_points(amplitude, phase, K_SHOT)
        fast = adapt(params, x_support, y_support, steps=1, create_graph=True)
        meta_loss = meta_loss + F.mse_loss(forward(fast, x_query), y_query)
    meta_loss = meta_loss / META_BATCH
    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
    losses_so_far.append(meta_loss.item())
    if iteration in (1, 2, 5, 10):
        print(f"iteration {iteration:3d}  meta-loss {meta_loss.item():.6f}")
    if iteration % 50 == 0:  # one batch of five tasks is noisy: the mean over the last 50
        print(f"iterations {iteration - 49:3d}-{iteration:3d}  mean meta-loss {sum(losses_so_far[-50:]) / 50:.6f}")

# --- a baseline: the same network trained on all tasks at once (no inner step) ---------
baseline = init_params()
base_opt = torch.optim.Adam(baseline, lr=META_LR)
for _ in range(ITERATIONS):
    loss = 0.0
    for amplitude, phase in zip(*sample_tasks(META_BATCH)):
        x, y = sample_points(amplitude, phase, K_SHOT)
        loss = loss + F.mse_loss(forward(baseline, x), y)
    base_opt.zero_grad()
    (loss / META_BATCH).backward()
    base_opt.step()

# --- held-out tasks: K points to adapt on, a grid of 100 to measure ---------------------
x_grid = torch.linspace(-5, 5, 100).unsqueeze(1)
results = {"MAML": [], "baseline": []}
for amplitude, phase in zip(*sample_tasks(10)):
    x, y = sample_points(amplitude, phase, K_SHOT)
    y_grid = amplitude * torch.sin(x_grid - phase)
    for name, start in (("MAML", params), ("baseline", baseline)):
        losses = []
        for steps in (0, 1, 10):
            adapted = adapt(start, x, y, steps=steps, create_graph=False)
            with torch.no_grad():
                losses.append(F.mse_loss(forward(adapted, x_grid), y_grid).item())
        results[name].append(losses)
for name, rows in results.items():
    before, one, ten = (sum(column) / len(rows) for column in zip(*rows))
    print(f"held-out {name:8s}  before {before:.6f}  after 1 step {one:.6f}  after 10 steps {ten:.6f}")
