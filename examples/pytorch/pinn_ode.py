"""A physics-informed neural network (PINN) solves u'' = -u on [0, pi/2] with u(0) = u(pi/2) = 1.

In the style of the PINN tutorials that follow Raissi et al. (2019): no solution values are
given, only the equation. A small MLP u(x) is trained so that the residual u'' + u vanishes
at collocation points and the boundary values hold. Its derivatives with respect to its
input come from autograd itself, nested:

    u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]

and the training step differentiates the residual, which holds u_xx, with respect to the
weights: a third derivative of the network. The exact solution is u = cos(x) + sin(x).
Runs unchanged on PyTorch and on MiniTorch (``python -m minitorch.run_as_torch
pinn_ode.py``).

Float64 (the point is the mathematics: residuals near 1e-6 are what is measured), seeded
with ``torch.manual_seed`` for the initial weights (MiniTorch draws PyTorch's numbers).
It prints the residual loss, the boundary loss and the largest error against the exact
solution as Adam trains, then after a few L-BFGS steps.
"""

import math

import torch
from torch import nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

# The collocation points (where the equation must hold) and the boundary.
x = torch.linspace(0, math.pi / 2, 32).unsqueeze(1).requires_grad_(True)
x_boundary = torch.tensor([[0.0], [math.pi / 2]])
u_boundary = torch.tensor([[1.0], [1.0]])
# Where the error against the exact solution is measured: a finer grid.
x_test = torch.linspace(0, math.pi / 2, 201).unsqueeze(1)
u_exact = torch.cos(x_test) + torch.sin(x_test)

# tanh, not ReLU: u'' of a ReLU network is zero almost everywhere.
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))


def losses():
    """(mean squared residual of u'' + u at the collocation points, mean squared boundary error)."""
    u = model(x)
    u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
    residual = (u_xx + u).pow(2).mean()
    boundary = (model(x_boundary) - u_boundary).pow(2).mean()
    return residual, boundary


def report(label):
    """One line: the two losses and the largest error against cos(x) + sin(x)."""
    residual, boundary = losses()
    with torch.no_grad():
        error = (model(x_test) - u_exact).abs().max()
    print(f"{label}  residual {residual.item():.6e}  boundary {boundary.item():.6e}  max error {error.item():.6e}")


report("start        ")
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(1, 501):
    residual, boundary = losses()
    loss = residual + boundary
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step in (1, 2, 5, 10, 100, 200, 500):
        report(f"Adam   {step:4d}")

# Then L-BFGS, as PINNs are often finished: a few steps of a quasi-Newton method.
lbfgs = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=20, history_size=10,
                          line_search_fn="strong_wolfe")


def closure():
    """The loss and its gradient, as L-BFGS asks for them (several times per step)."""
    lbfgs.zero_grad()
    residual, boundary = losses()
    loss = residual + boundary
    loss.backward()
    return loss


for step in range(1, 4):
    lbfgs.step(closure)
    report(f"L-BFGS {step:4d}")

# The derivative the network learned against the exact one, cos(x) - sin(x), at both ends.
ends = torch.tensor([[0.0], [math.pi / 2]], requires_grad=True)
u_end = model(ends)
slope = torch.autograd.grad(u_end, ends, torch.ones_like(u_end))[0]
print(f"u'(0) {slope[0, 0].item():.6f} (exact 1)  u'(pi/2) {slope[1, 0].item():.6f} (exact -1)")
