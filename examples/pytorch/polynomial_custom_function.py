"""Fit y = sin(x) with P3(c + d x), a Legendre polynomial written as a custom autograd Function.

In the style of PyTorch's "Learning PyTorch with Examples". Runs unchanged on PyTorch and
on MiniTorch. One difference is hidden here: in PyTorch, ``forward`` and ``backward``
receive Tensors; in MiniTorch they receive the underlying NumPy arrays (see
docs/DIFFERENCES-FROM-PYTORCH.md). The arithmetic below reads the same for both.
"""

import torch


class LegendrePolynomial3(torch.autograd.Function):
    """P3(x) = 1/2 (5 x^3 - 3 x), with its derivative P3'(x) = 3/2 (5 x^2 - 1)."""

    @staticmethod
    def forward(ctx, input):
        """Compute P3(input); keep the input for backward."""
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        """The gradient of the loss with respect to the input: grad_output * P3'(input)."""
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


dtype = torch.float
device = torch.device("cpu")

# Create Tensors to hold input and outputs.
x = torch.linspace(-1, 1, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# Weights: y = a + b * P3(c + d * x). These starting values are the tutorial's own: they
# must be close enough to the answer for the fit to converge.
a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(2000):
    # To apply our Function, we use Function.apply; we alias it as P3.
    P3 = LegendrePolynomial3.apply

    # Forward pass: compute predicted y using operations; P3 is computed by our Function.
    y_pred = a + b * P3(c + d * x)

    # Compute and print loss
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())

    # Use autograd to compute the backward pass.
    loss.backward()

    # Update weights using gradient descent
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        # Manually zero the gradients after updating weights
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)")
