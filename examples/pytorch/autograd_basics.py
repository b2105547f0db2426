"""How autograd computes gradients: leaves, the recorded graph, backward(), and switching it off.

In the style of PyTorch's "Automatic Differentiation with torch.autograd" page: a one-layer
logistic regression, its gradients, ``no_grad()`` and ``detach()``, backward twice with
``retain_graph``, gradients that add up until zeroed, and ``backward(gradient=...)`` on a
non-scalar output (a vector-Jacobian product). Runs unchanged on PyTorch (``python
autograd_basics.py``) and on MiniTorch (``python -m minitorch.run_as_torch
autograd_basics.py``); tests/compat/test_pytorch_examples.py checks that both print the same
thing.

The weights are made with ``linspace``, not ``randn``, so the numbers do not depend on the
random generator. The graph's node names (``z.grad_fn``) are not printed: they differ on
purpose (docs/DIFFERENCES-FROM-PYTORCH.md); whether a tensor has one is printed instead.
"""

import torch
import torch.nn.functional as F

# ---------------------------------------------------------------- a logistic regression
x = torch.ones(5)  # input
y = torch.zeros(3)  # expected output
w = torch.linspace(-1, 1, 15).reshape(5, 3).requires_grad_()
b = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
z = torch.matmul(x, w) + b
loss = F.binary_cross_entropy_with_logits(z, y)

print("x requires grad:", x.requires_grad, "| w:", w.requires_grad, "| b:", b.requires_grad)
print("leaves: x", x.is_leaf, "w", w.is_leaf, "b", b.is_leaf, "z", z.is_leaf, "loss", loss.is_leaf)
print("z requires grad:", z.requires_grad, "| z has a grad_fn:", z.grad_fn is not None)
print("w has a grad_fn:", w.grad_fn is not None, "| loss has a grad_fn:", loss.grad_fn is not None)
print("z =", z.detach())
print(f"loss = {loss.item():.6f}")
print("gradients before backward:", w.grad, b.grad)

loss.backward()
print("w.grad:", w.grad)
print("b.grad:", b.grad)
# The same gradients by hand: d loss / d z = (sigmoid(z) - y) / 3, and z = x @ w + b.
with torch.no_grad():
    dz = (torch.sigmoid(z) - y) / 3
    print("by hand, b:", dz)
    print("by hand, w equal to autograd's:", torch.allclose(torch.outer(x, dz), w.grad))

# ---------------------------------------------------------------- switching tracking off
z = torch.matmul(x, w) + b
print("tracked:", z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print("under no_grad:", z.requires_grad)

z = torch.matmul(x, w) + b
z_det = z.detach()
print("detached:", z_det.requires_grad, "| same values:", torch.equal(z_det, z.detach()))
# detach() shares the storage: changing the detached tensor changes the original's values.
shared = w.detach()
shared[0, 0] = 5.0
print("w[0] after writing through detach():", w[0].detach(), "| still tracked:", w.requires_grad)
shared[0, 0] = -1.0
print("grad enabled:", torch.is_grad_enabled())
with torch.no_grad():
    print("grad enabled inside no_grad:", torch.is_grad_enabled())
    with torch.enable_grad():
        inner = w * 2
    print("enable_grad inside no_grad records again:", inner.requires_grad)
with torch.set_grad_enabled(False):
    print("set_grad_enabled(False):", (w * 2).requires_grad)
print("after the blocks:", (w * 2).requires_grad)

# Freezing: a tensor whose requires_grad is False gets no gradient.
frozen = torch.linspace(0, 1, 3)
out = (frozen * b).sum()
out.backward()
print("frozen.grad:", frozen.grad, "| b.grad now (added to the first):", b.grad)

# ---------------------------------------------------------------- a few steps of gradient descent
# Update the leaves in place under no_grad (they stay leaves), then zero their gradients.
features = torch.linspace(-1, 1, 8).reshape(4, 2)
labels = torch.tensor([0.0, 1.0, 1.0, 1.0])
w2 = torch.zeros(2, requires_grad=True)
b2 = torch.zeros(1, requires_grad=True)
for step in range(6):
    step_loss = F.binary_cross_entropy_with_logits(features @ w2 + b2, labels)
    step_loss.backward()
    with torch.no_grad():
        w2 -= 0.5 * w2.grad
        b2 -= 0.5 * b2.grad
    w2_text = ", ".join(f"{v:.6f}" for v in w2.tolist())
    print(f"step {step}: loss {step_loss.item():.6f}  w2 [{w2_text}]  b2 {b2.item():.6f}  leaf {w2.is_leaf}")
    w2.grad.zero_()
    b2.grad.zero_()
with torch.no_grad():
    print("probabilities:", torch.sigmoid(features @ w2 + b2))

# ---------------------------------------------------------------- backward twice
w.grad = None
b.grad = None
z = torch.matmul(x, w) + b
loss = F.binary_cross_entropy_with_logits(z, y)
loss.backward(retain_graph=True)
print("first backward, b.grad:", b.grad)
loss.backward()
print("second backward adds up:", b.grad)
b.grad.zero_()
w.grad.zero_()
print("after zero_():", b.grad, w.grad.abs().sum().item())

# ---------------------------------------------------------------- a non-scalar output
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
print("out:", out.shape, out.detach())
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

# A weighting other than ones: each entry of out weighted by its row number.
weights = torch.arange(5, dtype=torch.float32).reshape(5, 1).expand(5, 4)
inp.grad = None
out.backward(weights)
print(f"\nWeighted by row\n{inp.grad}")

# ---------------------------------------------------------------- gradients of a few functions
t = torch.linspace(-2, 2, 9, requires_grad=True)
for name, fn in [
    ("t**3", lambda v: v**3),
    ("sigmoid", torch.sigmoid),
    ("tanh", torch.tanh),
    ("relu", torch.relu),
    ("exp", torch.exp),
    ("abs", torch.abs),
]:
    t.grad = None
    fn(t).sum().backward()
    print(f"d/dt sum({name}):", t.grad)

# ---------------------------------------------------------------- non-leaf gradients and hooks
a = torch.linspace(0, 1, 3, requires_grad=True)
h = a * 3
h.retain_grad()  # keep the gradient of this intermediate tensor too
k = a * 2
seen = []
k.register_hook(lambda grad: seen.append(grad.clone()))  # look at it on its way through
total = (h * h).sum() + (k**2).sum()
total.backward()
print("h.grad (retained):", h.grad)
print("k's gradient seen by the hook:", seen[0])
print("a.grad = 3 * h.grad + 2 * hook's:", a.grad, torch.allclose(a.grad, 3 * h.grad + 2 * seen[0]))

# A hook on a leaf may replace the gradient; remove() takes it off again.
a.grad = None
handle = a.register_hook(lambda grad: grad * 10)
(a * a).sum().backward()
print("with a hook multiplying by 10:", a.grad)
handle.remove()
a.grad = None
(a * a).sum().backward()
print("hook removed:", a.grad)

# ---------------------------------------------------------------- what backward refuses
for what, step in [
    ("second backward without retain_graph", lambda: total.backward()),
    ("backward of a non-scalar without a gradient", lambda: (a * 2).backward()),
    ("a gradient of the wrong shape", lambda: (a * 2).sum().backward(torch.ones(3))),
    ("backward of a tensor made under no_grad", lambda: z_det.sum().backward()),
]:
    try:
        step()
        print(what, "-> accepted")
    except RuntimeError:
        print(what, "-> RuntimeError")
