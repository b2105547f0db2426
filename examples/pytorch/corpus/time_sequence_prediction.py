"""Predict sine waves with two LSTM cells trained by L-BFGS, in the style of pytorch/examples' time_sequence_prediction.

The shape of the original: sine waves with random phase shifts (drawn with NumPy, so both
frameworks get the same data), a ``Sequence`` module of two ``nn.LSTMCell`` and a
``Linear`` unrolled by hand over time, with ``future`` steps fed back from its own
predictions, all in float64 (``.double()``), trained with ``optim.LBFGS(lr=0.8)`` and a
closure that prints the loss at every evaluation.

Smaller than the original (shorter waves, fewer of them, a smaller state), and the weights
start from a fixed pattern instead of a random draw, so both frameworks print the same
numbers: every L-BFGS evaluation's loss, then the test loss.
"""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

# --- the data (generate_sine_wave.py of the original, smaller) ------------------------
np.random.seed(2)
T, L, N = 20, 60, 12
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype("float64")


class Sequence(nn.Module):
    def __init__(self, hidden=12):
        super().__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):  # predict the future from the model's own outputs
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


input = torch.from_numpy(data[3:, :-1])
target = torch.from_numpy(data[3:, 1:])
test_input = torch.from_numpy(data[:3, :-1])
test_target = torch.from_numpy(data[:3, 1:])
print("input", input.shape, input.dtype, "test", test_input.shape)

seq = Sequence()
seq.double()
# A fixed, irregular starting point in PyTorch's init range +-1/sqrt(hidden) (no random draw).
with torch.no_grad():
    for i, p in enumerate(seq.parameters()):
        pattern = torch.sin(torch.arange(p.numel(), dtype=torch.double) * 1.7 + i)
        p.copy_(pattern.reshape(p.shape) / math.sqrt(seq.hidden))
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=6)

for i in range(3):
    print("STEP: ", i)

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        print("loss:", f"{loss.item():.10f}")
        loss.backward()
        return loss

    optimizer.step(closure)
    with torch.no_grad():  # begin to predict, no need to track gradient here
        future = 10
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print("test loss:", f"{loss.item():.10f}")
        y = pred.detach().numpy()
    print("prediction", tuple(pred.shape), "last values", np.round(y[:, -1], 6).tolist())
