"""Fit y = sin(x) with a third-order polynomial; autograd computes the gradients.

In the style of PyTorch's "Learning PyTorch with Examples". Runs unchanged on PyTorch and
on MiniTorch (``python -m minitorch.run_as_torch polynomial_autograd.py``).
"""

import math

import torch

dtype = torch.float
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.set_default_device(device)

# Create Tensors to hold input and outputs.
# By default, requires_grad=False: we do not need gradients with respect to these.
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)

# Tensors for the weights, with requires_grad=True: autograd tracks every operation on
# them. (Fixed starting values instead of the tutorial's random ones: see polynomial_tensors.py.)
a = torch.tensor(0.1, dtype=dtype, requires_grad=True)
b = torch.tensor(-0.2, dtype=dtype, requires_grad=True)
c = torch.tensor(0.3, dtype=dtype, requires_grad=True)
d = torch.tensor(-0.4, dtype=dtype, requires_grad=True)

learning_rate = 1e-6
for t in range(2000):
    # Forward pass: compute predicted y using operations on Tensors.
    y_pred = a + b * x + c * x**2 + d * x**3

    # Compute and print loss. loss is a Tensor of shape (); loss.item() its value.
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())

    # Backward pass: gradients of loss with respect to a, b, c, d land in a.grad ...
    loss.backward()

    # Update the weights by hand, outside autograd's view (torch.no_grad()).
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        # Reset the gradients after updating the weights
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
