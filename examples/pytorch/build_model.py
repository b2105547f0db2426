"""Build a neural network from torch.nn pieces and look inside it.

In the style of PyTorch's "Build the Neural Network" page: an ``nn.Module`` subclass made of
``nn.Flatten`` and an ``nn.Sequential`` of ``nn.Linear`` and ``nn.ReLU`` layers, its printed
structure, one forward pass, class probabilities through ``nn.Softmax``, the layers one at a
time, and the parameters by name. Runs unchanged on PyTorch (``python build_model.py``) and
on MiniTorch (``python -m minitorch.run_as_torch build_model.py``);
tests/compat/test_pytorch_examples.py checks that both print the same thing.

Nothing here depends on the random generator: the input images are made with ``linspace``
and ``arange``, and every weight is overwritten with a fixed pattern before it is used.
Tensors that carry a graph are printed after ``detach()`` or under ``no_grad()``: the names
of backward nodes differ on purpose (docs/DIFFERENCES-FROM-PYTORCH.md).
"""

import math
from collections import OrderedDict

import torch
from torch import nn

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")

# Tiny "images": 6x6 pixels, one channel dropped (N, H, W), 4 classes.
HEIGHT, WIDTH, CLASSES = 6, 6, 4


class TinyImageNet(nn.Module):
    """(N, 6, 6) pixels -> 36 values -> 12 -> 12 hidden units (ReLU) -> 4 class scores."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(HEIGHT * WIDTH, 12),
            nn.ReLU(),
            nn.Linear(12, 12),
            nn.ReLU(),
            nn.Linear(12, CLASSES),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = TinyImageNet().to(device)
print(model)


def fill_deterministically(module):
    """Overwrite a Linear layer's random weights with a fixed pattern of the same scale."""
    if isinstance(module, nn.Linear):
        fan_in = module.weight.shape[1]
        bound = 1 / math.sqrt(fan_in)
        with torch.no_grad():
            steps = torch.arange(module.weight.numel(), dtype=torch.float32)
            pattern = torch.sin(steps * 2.3 + module.out_features) * torch.cos(steps * 0.37)
            module.weight.copy_(pattern.reshape(module.weight.shape) * bound)
            module.bias.copy_(torch.cos(torch.arange(module.bias.numel()) * 1.3) * bound)


model.apply(fill_deterministically)

# ---------------------------------------------------------------- one forward pass
# Three images: a ramp, the ramp turned upside down, and a checkerboard.
ramp = torch.linspace(0, 1, HEIGHT * WIDTH).reshape(HEIGHT, WIDTH)
checker = (torch.arange(HEIGHT).reshape(-1, 1) + torch.arange(WIDTH)) % 2
X = torch.stack([ramp, ramp.flip(0), checker.float()]).to(device)
print(f"input: shape {tuple(X.shape)}, dtype {X.dtype}, mean {X.mean().item():.4f}")

logits = model(X)
print("logits requires grad:", logits.requires_grad)
print("logits:", logits.detach())
pred_probab = nn.Softmax(dim=1)(logits)
print("probabilities:", pred_probab.detach())
print("each row sums to 1:", [f"{s:.6f}" for s in pred_probab.sum(dim=1).tolist()])
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
print("most likely class per image:", y_pred.tolist(), "dtype", y_pred.dtype)

# Calling the model, calling forward, and calling the Sequential after Flatten agree.
with torch.no_grad():
    same = torch.equal(model(X), model.linear_relu_stack(X.reshape(3, -1)))
print("model(X) equals stack(flatten(X)):", same)

# ---------------------------------------------------------------- the layers one at a time
input_image = torch.linspace(-1, 1, 3 * HEIGHT * WIDTH).reshape(3, HEIGHT, WIDTH)
print("input_image:", input_image.size())

flatten = nn.Flatten()
flat_image = flatten(input_image)
print("after Flatten:", flat_image.size())
print("Flatten(0) instead:", nn.Flatten(0)(input_image).size(), nn.Flatten(0))

layer1 = nn.Linear(in_features=HEIGHT * WIDTH, out_features=5)
fill_deterministically(layer1)
with torch.no_grad():
    hidden1 = layer1(flat_image)
print("after Linear:", hidden1.size())
print(f"Before ReLU: {hidden1}\n\n")
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")
print("negative entries left:", (hidden1 < 0).sum().item(), "zeros:", (hidden1 == 0).sum().item())

seq_modules = nn.Sequential(
    flatten,
    layer1,
    nn.ReLU(),
    nn.Linear(5, 3),
)
fill_deterministically(seq_modules[3])
print(seq_modules)
with torch.no_grad():
    out = seq_modules(input_image)
    print("Sequential output:", out)
    softmax = nn.Softmax(dim=1)
    print("softmax:", softmax, softmax(out))
    print("softmax over dim 0 instead:", nn.Softmax(dim=0)(out))

# The same walk through the model's own stack, printing each layer's output shape.
with torch.no_grad():
    h = model.flatten(X)
    print(f"{'flatten':>10}: {tuple(h.shape)}")
    for i, layer in enumerate(model.linear_relu_stack):
        h = layer(h)
        print(f"{i:>2} {type(layer).__name__:>7}: {tuple(h.shape)}  mean {h.mean().item():+.5f}"
              f"  max {h.max().item():+.5f}")
print("len(stack):", len(model.linear_relu_stack), "stack[-1]:", model.linear_relu_stack[-1])
print("stack[1:3]:", model.linear_relu_stack[1:3])

# ---------------------------------------------------------------- parameters by name
print(f"Model structure: {model}\n\n")
for name, param in model.named_parameters():
    # detach(): the slice would print its grad_fn, whose name differs on purpose.
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2].detach()} \n")

total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("parameters:", total, "trainable:", trainable, "tensors:", len(list(model.parameters())))
print("state_dict keys:", list(model.state_dict().keys()))
print("children:", [type(m).__name__ for m in model.children()])
print("named_children:", [name for name, _ in model.named_children()])
print("modules:", [name for name, _ in model.named_modules()])
print("last bias as a Parameter:", model.linear_relu_stack[4].bias)
print("a Linear layer's weight is a Parameter:", isinstance(model.linear_relu_stack[0].weight, nn.Parameter))

# train() / eval() switch a flag on every submodule.
model.eval()
print("after eval():", model.training, model.linear_relu_stack[0].training)
model.train()
print("after train():", model.training, model.linear_relu_stack[0].training)

# Freezing the first layer: requires_grad_(False) on its parameters.
model.linear_relu_stack[0].requires_grad_(False)
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("trainable after freezing layer 0:", trainable)
print("frozen:", [name for name, p in model.named_parameters() if not p.requires_grad])

# ---------------------------------------------------------------- a Sequential with names
named = nn.Sequential(OrderedDict([
    ("flatten", nn.Flatten()),
    ("hidden", nn.Linear(HEIGHT * WIDTH, 8)),
    ("act", nn.ReLU()),
    ("out", nn.Linear(8, CLASSES, bias=False)),
]))
with torch.no_grad():
    named.hidden.weight.copy_(torch.linspace(-0.2, 0.2, 8 * HEIGHT * WIDTH).reshape(8, -1))
    named.hidden.bias.fill_(0.05)
    named.out.weight.copy_(torch.arange(8 * CLASSES, dtype=torch.float32).reshape(CLASSES, 8) / 32 - 0.5)
print(named)
print("named.hidden:", named.hidden, "| out.bias is None:", named.out.bias is None)
print("state_dict shapes:", {k: tuple(v.shape) for k, v in named.state_dict().items()})
with torch.no_grad():
    scores = named(X)
print("scores:", scores)
print("probabilities:", scores.softmax(dim=1))
print("predicted:", scores.argmax(dim=1), "max score:", scores.max(dim=1).values)
