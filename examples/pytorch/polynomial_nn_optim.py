"""Fit y = sin(x) with a polynomial as an nn.Linear layer, trained by an optimizer.

In the style of PyTorch's "Learning PyTorch with Examples" (the nn and optim parts). Runs
unchanged on PyTorch and on MiniTorch. Pass an optimizer name to try another one:
``python polynomial_nn_optim.py adagrad`` (rmsprop, the tutorial's choice, by default).

Float64 throughout (``set_default_dtype``): near the optimum the weights a and c (sin is
odd, so their best value is 0) get gradients that are pure rounding noise, and RMSprop and
Adam take full-size steps in the direction of that noise. Two libraries that sum in a
different order then drift apart (in float64 too, only later); SGD, Adagrad and Adadelta
print the same numbers to many digits.
"""

import math
import sys

import torch

torch.set_default_dtype(torch.float64)

# Create Tensors to hold input and outputs.
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

# Prepare the input tensor (x, x^2, x^3): x.unsqueeze(-1) has shape (2000, 1) and p shape
# (3,), so broadcasting gives xx the shape (2000, 3).
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

# A Linear layer computes the output from the input with a linear function; Flatten
# turns its (2000, 1) output into a 1-D tensor to match y.
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))

# Linear layers start from random weights; zeros make the printed numbers independent of
# the random generator, so both frameworks print the same numbers.
torch.nn.init.zeros_(model[0].weight)
torch.nn.init.zeros_(model[0].bias)

# Sum of squared errors as our loss function.
loss_fn = torch.nn.MSELoss(reduction="sum")

# The tutorial uses RMSprop; pass another name to compare: sgd, adam, adagrad, adadelta.
name = sys.argv[1] if len(sys.argv) > 1 else "rmsprop"
learning_rate = {"sgd": 1e-6, "adam": 1e-3, "rmsprop": 1e-3, "adagrad": 0.1, "adadelta": 1.0}[name]
optimizer_class = {
    "sgd": torch.optim.SGD,
    "adam": torch.optim.Adam,
    "rmsprop": torch.optim.RMSprop,
    "adagrad": torch.optim.Adagrad,
    "adadelta": torch.optim.Adadelta,
}[name]
optimizer = optimizer_class(model.parameters(), lr=learning_rate)

for t in range(2000):
    # Forward pass: compute predicted y by passing x to the model.
    y_pred = model(xx)

    # Compute and print loss.
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())

    # Zero the gradients, backward pass, then one optimizer step.
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

linear_layer = model[0]
print(
    f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
    f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3"
)
