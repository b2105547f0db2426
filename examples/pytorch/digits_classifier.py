"""Train a small classifier on scikit-learn's 8x8 handwritten digits (bundled: no download).

In the style of PyTorch's "Quickstart" (Dataset, DataLoader, an nn.Module, a train and a
test loop). Runs unchanged on PyTorch and on MiniTorch (``python -m minitorch.run_as_torch
digits_classifier.py``).

Every number it prints is independent of the random generator, so both frameworks print
the same numbers: the data is split by position, the DataLoader does not shuffle, and the
weights start from a fixed pattern instead of a random draw.
"""

import math

import torch
from sklearn.datasets import load_digits
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")

# The data: 1,797 images of 8x8 pixels (values 0..16), labels 0..9. Scale the pixels to
# [0, 1]; the first 1,500 images train, the other 297 test.
digits = load_digits()
images = torch.tensor(digits.data / 16.0, dtype=torch.float32)
labels = torch.tensor(digits.target, dtype=torch.int64)


class DigitsDataset(Dataset):
    """One (image, label) pair per index, as a map-style Dataset."""

    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]


training_data = TensorDataset(images[:1500], labels[:1500])
test_data = DigitsDataset(images[1500:], labels[1500:])

batch_size = 50
train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)

for X, y in test_dataloader:
    print(f"Shape of X [N, 64]: {tuple(X.shape)}")
    print(f"Shape of y: {tuple(y.shape)} {y.dtype}")
    break


class NeuralNetwork(nn.Module):
    """64 pixels -> 32 hidden units (ReLU) -> 10 class scores."""

    def __init__(self):
        super().__init__()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(64, 32),
            nn.ReLU(),
            nn.Linear(32, 10),
        )

    def forward(self, x):
        return self.linear_relu_stack(x)


model = NeuralNetwork().to(device)

# Instead of a random draw: a fixed, irregular pattern in [-1/sqrt(in), 1/sqrt(in)] (the
# range PyTorch draws from), different for every weight so that no two units are alike.
with torch.no_grad():
    for layer in (model.linear_relu_stack[0], model.linear_relu_stack[2]):
        fan_in = layer.weight.shape[1]
        pattern = torch.sin(torch.arange(layer.weight.numel(), dtype=torch.float32) * 2.3)
        layer.weight.copy_(pattern.reshape(layer.weight.shape) / math.sqrt(fan_in))
        layer.bias.zero_()

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def train(dataloader, model, loss_fn, optimizer):
    """One pass over the training data, printing the loss every 10 batches."""
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 10 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    """Accuracy and average loss on the test data."""
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


epochs = 5
for t in range(epochs):
    print(f"Epoch {t + 1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
print("Done!")

# Save and load the weights, as the Quickstart does (weights_only: MiniTorch never unpickles).
torch.save(model.state_dict(), "digits_model.pth")
model = NeuralNetwork().to(device)
model.load_state_dict(torch.load("digits_model.pth", weights_only=True))
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    pred = model(x.unsqueeze(0))
    print(f'Predicted: "{pred[0].argmax(0).item()}", Actual: "{y.item()}"')
