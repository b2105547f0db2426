"""Classifying names with a character-level RNN, in the style of PyTorch's NLP-from-scratch tutorial.

The shape of "NLP From Scratch": names of a few made-up languages turned into one-hot
tensors letter by letter (``line_to_tensor``), an RNN written as a module of its own (two
``nn.Linear`` layers on the concatenated input and hidden state, ``nn.LogSoftmax``),
``nn.NLLLoss``, and the tutorial's hand-written update, ``p.data.add_(p.grad.data,
alpha=-learning_rate)``. Training examples are drawn with Python's ``random`` (seeded);
the weights start from ``torch.manual_seed``. Then the trained network draws guesses
from its own distribution with ``torch.multinomial``. The names are made here, so
nothing is downloaded.
"""

import random
import string

import torch
import torch.nn as nn

# --- the data: four made-up "languages", each a stock of syllables ---------------------
SYLLABLES = {
    "Aran": ["ka", "ra", "na", "ta", "ma"],
    "Belo": ["bel", "lo", "ve", "no", "re"],
    "Cuzi": ["zu", "ci", "qui", "zo", "xi"],
    "Dorm": ["dor", "mun", "thal", "gr", "ok"],
}
names = {
    lang: ["".join(parts[(i * 3 + k * (j + 1)) % len(parts)] for k in range(2 + i % 2)).capitalize()
           for i, j in ((i, i // 5) for i in range(20))]
    for lang, parts in SYLLABLES.items()
}
all_categories = sorted(names)
all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
print(f"{len(all_categories)} categories, {n_letters} letters, e.g. {names['Cuzi'][:3]}")


def line_to_tensor(line):
    """A (len(line), 1, n_letters) one-hot tensor, as the tutorial builds it."""
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


print("line_to_tensor('Kara'):", tuple(line_to_tensor("Kara").size()))


class RNN(nn.Module):
    """The tutorial's RNN: the next hidden state and the output from [input, hidden]."""

    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = torch.tanh(self.i2h(combined))
        output = self.softmax(self.i2o(combined))
        return output, hidden

    def init_hidden(self):
        return torch.zeros(1, self.hidden_size)


torch.manual_seed(0)
random.seed(0)
n_hidden = 32
rnn = RNN(n_letters, n_hidden, len(all_categories))
criterion = nn.NLLLoss()
learning_rate = 0.01


def category_from_output(output):
    top_n, top_i = output.topk(1)
    return all_categories[top_i[0].item()], top_i[0].item()


def random_training_example():
    category = random.choice(all_categories)
    line = random.choice(names[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    return category, line, category_tensor, line_to_tensor(line)


def train(category_tensor, line_tensor):
    hidden = rnn.init_hidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    # The tutorial's update: add the gradients, times the learning rate, to the values.
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


current_loss = 0.0
for it in range(1, 601):
    category, line, category_tensor, line_tensor = random_training_example()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss
    if it % 150 == 0:
        guess, _ = category_from_output(output)
        print(f"{it:4d} loss {current_loss / 150:.4f} {line} -> {guess} ({'ok' if guess == category else 'no'})")
        current_loss = 0.0

# --- the confusion matrix over every name, as the tutorial's evaluation ----------------
confusion = torch.zeros(len(all_categories), len(all_categories))
with torch.no_grad():
    for category in all_categories:
        for line in names[category]:
            hidden = rnn.init_hidden()
            line_tensor = line_to_tensor(line)
            for i in range(line_tensor.size()[0]):
                output, hidden = rnn(line_tensor[i], hidden)
            _, guess_i = category_from_output(output)
            confusion[all_categories.index(category)][guess_i] += 1
confusion = confusion / confusion.sum(1, keepdim=True)
print("accuracy per category:", [f"{v:.2f}" for v in confusion.diag().tolist()])

# --- sampling guesses from the model's distribution: torch.multinomial with a generator ---
g = torch.Generator().manual_seed(42)
with torch.no_grad():
    for line in ("Zuci", "Belno"):
        hidden = rnn.init_hidden()
        line_tensor = line_to_tensor(line)
        for i in range(line_tensor.size()[0]):
            output, hidden = rnn(line_tensor[i], hidden)
        draws = torch.multinomial(output.exp()[0], 8, replacement=True, generator=g)
        print(f"{line}: p={[round(v, 4) for v in output.exp()[0].tolist()]}",
              "sampled:", " ".join(all_categories[i] for i in draws.tolist()))
