"""A two-layer network in the spellings of PyTorch's tutorials from before version 0.4.

Older tutorials, books and course notes still write ``Variable(x, requires_grad=True)``,
pick a dtype as ``dtype = torch.FloatTensor`` and convert with ``.type(dtype)``, build
tensors with ``torch.Tensor(N, D)`` (a *shape*) and ``torch.LongTensor([...])``, start
accumulators as ``torch.Tensor([0])`` (a float tensor), and update weights in place
through ``.data``: ``w1.data -= learning_rate * w1.grad.data``. PyTorch 2 still runs all
of it, and so does MiniTorch under ``run_as_torch`` (which gives a program's ``.data``
PyTorch's meaning), down to ``w.grad.data.zero_()``.
The inputs and weights are fixed patterns (no ``randn``), so both frameworks print the
same numbers.
"""

import torch
from torch.autograd import Variable

dtype = torch.FloatTensor
N, D_in, H, D_out = 16, 10, 20, 3

# torch.Tensor(N, D_in) is an (uninitialised) tensor of that shape; fill it in place.
x = torch.Tensor(N, D_in)
with torch.no_grad():
    x.copy_(torch.sin(torch.arange(N * D_in, dtype=torch.float32) * 0.37).view(N, D_in))
x = Variable(x.type(dtype), requires_grad=False)
labels = torch.LongTensor([i % D_out for i in range(N)])
y = Variable(torch.zeros(N, D_out).type(dtype))
y[torch.arange(N), labels] = 1.0
print("x:", x.size(), x.type(), isinstance(x, torch.FloatTensor), isinstance(x, Variable))
print("labels:", labels.size(), labels.type(), torch.Tensor(1, 5).size(), torch.Tensor([0]).dtype)

w1 = Variable((torch.cos(torch.arange(D_in * H, dtype=torch.float32) * 0.91) * 0.3).view(D_in, H).type(dtype),
              requires_grad=True)
w2 = Variable((torch.sin(torch.arange(H * D_out, dtype=torch.float32) * 1.3) * 0.3).view(H, D_out).type(dtype),
              requires_grad=True)

learning_rate = 2e-3
running = torch.Tensor([0])
for t in range(200):
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 40 == 0:
        print(t, f"{loss.item():.6f}")
    running += loss.data
    loss.backward()
    # The pre-0.4 update: through .data, so autograd does not record it.
    w1.data -= learning_rate * w1.grad.data
    w2.data -= learning_rate * w2.grad
    w1.grad.data.zero_()
    w2.grad.data.zero_()
print("final loss", f"{loss.item():.6f}", "mean loss", f"{(running / 200).item():.6f}", running.type())

# A legacy dtype conversion and an isinstance check on the result.
correct = (y_pred.argmax(1) == labels).type(torch.FloatTensor)
print("accuracy", f"{correct.mean().item():.4f}", isinstance(correct, torch.FloatTensor),
      isinstance(labels, torch.LongTensor), isinstance(labels, torch.FloatTensor))
as_long = torch.FloatTensor([1.7, -2.2]).type(torch.LongTensor)
print("as double:", w2.type(torch.DoubleTensor).dtype, "as long:", as_long)
