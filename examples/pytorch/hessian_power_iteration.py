"""The top eigenvalue of a small MLP's loss Hessian by power iteration on Hessian-vector products.

In the style of PyHessian (Yao et al., 2020) and of the "sharpness" measurements that follow
it: the Hessian of the loss with respect to the weights is never built; only its products
with a vector are, each with two ``grad`` calls (Pearlmutter's trick):

    grads = torch.autograd.grad(loss, params, create_graph=True)   # a graph of the gradient
    hv = torch.autograd.grad(grads, params, grad_outputs=v)        # d(grads . v) / d params

Power iteration on those products finds the eigenvalue of largest magnitude. For a network
this small the full Hessian can be built too (``torch.autograd.functional.hessian`` of the
loss as a function of the flattened weights), and its eigenvalues checked. Runs unchanged on
PyTorch and on MiniTorch (``python -m minitorch.run_as_torch hessian_power_iteration.py``).

Float64 (the point is the mathematics), seeded with ``torch.manual_seed`` (MiniTorch draws
PyTorch's numbers). Two phases: at initialisation, and after training with SGD. Each prints
the Rayleigh quotient as the power iteration converges, then the full Hessian's extreme
eigenvalues (computed by NumPy).
"""

import math

import numpy
import torch
from torch import nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

# A small regression problem: 64 points in 2-D, y = sin(2 x1) * x2.
x = 2 * torch.rand(64, 2) - 1
y = (torch.sin(2 * x[:, :1]) * x[:, 1:]).detach()

model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
params = list(model.parameters())
shapes = [p.shape for p in params]
sizes = [p.numel() for p in params]
loss_fn = nn.MSELoss()


def hessian_vector_product(vector):
    """H v for the loss at the current weights: two grad calls, v given as one tensor per parameter."""
    loss = loss_fn(model(x), y)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    return torch.autograd.grad(grads, params, grad_outputs=vector)


def power_iteration(iterations):
    """The eigenvalue of largest magnitude, printing the Rayleigh quotient v . Hv on the way."""
    v = [torch.randn(shape) for shape in shapes]
    norm = math.sqrt(sum((t * t).sum().item() for t in v))
    v = [t / norm for t in v]
    eigenvalue = 0.0
    for i in range(1, iterations + 1):
        hv = hessian_vector_product(v)
        eigenvalue = sum((a * b).sum().item() for a, b in zip(v, hv))  # v has norm 1
        norm = math.sqrt(sum((t * t).sum().item() for t in hv))
        v = [t / norm for t in hv]
        if i in (1, 2, 3, 5, 10, 20, iterations):
            print(f"  power iteration {i:3d}: {eigenvalue:.10f}")
    return eigenvalue, v


def loss_of_flat(flat):
    """The same loss as a function of all weights in one vector (what hessian() differentiates)."""
    w1, b1, w2, b2, w3, b3 = (t.view(shape) for t, shape in zip(flat.split(sizes), shapes))
    hidden = torch.tanh(x @ w1.T + b1)
    hidden = torch.tanh(hidden @ w2.T + b2)
    return ((hidden @ w3.T + b3 - y) ** 2).mean()


def full_hessian_check(eigenvalue, vector):
    """Build the full Hessian, compare H v with the product above, print its extreme eigenvalues."""
    flat = torch.cat([p.detach().reshape(-1) for p in params])
    hessian = torch.autograd.functional.hessian(loss_of_flat, flat)
    print(f"  full Hessian: {tuple(hessian.shape)}, symmetric: {torch.allclose(hessian, hessian.T)}")
    hv = torch.cat([t.reshape(-1) for t in hessian_vector_product(vector)])
    v_flat = torch.cat([t.reshape(-1) for t in vector])
    print(f"  H v from hessian() equals the two-grad product: {torch.allclose(hessian @ v_flat, hv)}")
    eigenvalues = numpy.linalg.eigvalsh(hessian.numpy())
    top = eigenvalues[numpy.argmax(numpy.abs(eigenvalues))]
    print(f"  eigenvalues from {eigenvalues[0]:.10f} to {eigenvalues[-1]:.10f}; "
          f"largest in magnitude {top:.10f}")
    print(f"  power iteration against it: relative difference below 1e-6: {abs(eigenvalue - top) <= 1e-6 * abs(top)}")


print(f"at initialisation: loss {loss_fn(model(x), y).item():.10f}")
full_hessian_check(*power_iteration(30))

# Gradient descent is stable while the top eigenvalue stays below 2 / lr.
LR = 0.1
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
for _ in range(300):
    loss = loss_fn(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"after 300 steps of gradient descent (lr {LR}, stable below 2 / lr = {2 / LR:.1f}): "
      f"loss {loss_fn(model(x), y).item():.10f}")
full_hessian_check(*power_iteration(30))
