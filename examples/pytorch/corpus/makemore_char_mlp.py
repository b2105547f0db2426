"""A character-level language model of names, in the style of Karpathy's makemore lectures.

Two models, as the lectures build them: first the bigram model (a table of counts turned
into probabilities, its average negative log likelihood, then the same table learned by
gradient descent on one-hot inputs), then the MLP of Bengio et al. 2003 (an embedding
table C, a tanh hidden layer, logits over the next character) trained with
``p.data += -lr * p.grad`` on minibatches drawn with ``torch.randint``. The data set is
made here, from syllables, so nothing is downloaded.

The weights start from ``torch.randn`` after ``torch.manual_seed``; MiniTorch's CPU random
stream is PyTorch's, so every printed number is PyTorch's (tests/compat/test_pytorch_corpus.py
compares them line by line).
"""

import torch
import torch.nn.functional as F

# --- the data: 200 made-up names, built from syllables by index arithmetic -------------
syllables = ["ka", "mi", "ro", "sa", "le", "na", "to", "ri", "el", "an", "jo", "ve", "lu", "da", "i", "o"]
words = []
for i in range(200):
    n = 2 + i % 3
    words.append("".join(syllables[(i * 7 + k * 5 + i // 16) % len(syllables)] for k in range(n)))
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(stoi)
print(f"{len(words)} words, vocabulary of {vocab_size} characters, first: {words[:3]}")

# --- the bigram model by counting ------------------------------------------------------
N = torch.zeros((vocab_size, vocab_size), dtype=torch.int64)
for w in words:
    cs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(cs, cs[1:]):
        N[stoi[ch1], stoi[ch2]] += 1
P = (N + 1).float()
P /= P.sum(1, keepdim=True)
log_likelihood = 0.0
n = 0
for w in words:
    cs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(cs, cs[1:]):
        log_likelihood += torch.log(P[stoi[ch1], stoi[ch2]])
        n += 1
print(f"bigram counts: {N.sum().item()} pairs, nll={(-log_likelihood / n).item():.4f}")

# --- the same bigram model learned by gradient descent ---------------------------------
xs, ys = [], []
for w in words:
    cs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(cs, cs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs, ys = torch.tensor(xs), torch.tensor(ys)
print("bigram data:", xs.shape, xs.dtype, ys.shape)
g = torch.manual_seed(2147483647)
W = torch.randn((vocab_size, vocab_size), requires_grad=True)
for k in range(30):
    xenc = F.one_hot(xs, num_classes=vocab_size).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdim=True)
    loss = -probs[torch.arange(len(ys)), ys].log().mean() + 0.01 * (W**2).mean()
    if k % 10 == 0:
        print(f"gradient bigram step {k}: loss {loss.item():.4f}")
    W.grad = None
    loss.backward()
    W.data += -20 * W.grad
print(f"gradient bigram final loss {loss.item():.4f}")

# --- the MLP: block_size characters of context -> the next one -------------------------
block_size = 3


def build_dataset(words):
    """Every (context of block_size characters, next character) pair of the words."""
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


n1 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:])
print("train:", Xtr.shape, Ytr.shape, "dev:", Xdev.shape, Xdev.dtype)

torch.manual_seed(2147483647)
n_embd, n_hidden = 6, 50
C = torch.randn((vocab_size, n_embd))
W1 = torch.randn((n_embd * block_size, n_hidden)) * (5 / 3) / (n_embd * block_size) ** 0.5
b1 = torch.randn(n_hidden) * 0.01
W2 = torch.randn((n_hidden, vocab_size)) * 0.01
b2 = torch.randn(vocab_size) * 0
parameters = [C, W1, b1, W2, b2]
print("parameters:", sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

lossi = []
max_steps, batch_size = 600, 32
for i in range(max_steps):
    ix = torch.randint(0, Xtr.shape[0], (batch_size,))
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]  # (batch, block_size, n_embd)
    embcat = emb.view(emb.shape[0], -1)
    h = torch.tanh(embcat @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 400 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 200 == 0:
        print(f"{i:7d}/{max_steps:7d}: {loss.item():.4f}")
    lossi.append(loss.log10().item())


@torch.no_grad()
def split_loss(X, Y):
    """The mean cross-entropy of the whole split."""
    emb = C[X]
    h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
    return F.cross_entropy(h @ W2 + b2, Y).item()


print(f"train loss {split_loss(Xtr, Ytr):.4f}")
print(f"dev loss {split_loss(Xdev, Ydev):.4f}")

# Greedy decoding (the lectures sample with torch.multinomial; greedy keeps it short).
for start in range(3):
    out, context = [], [0] * (block_size - 1) + [start + 1]
    out.append(itos[start + 1])
    for _ in range(8):
        emb = C[torch.tensor([context])]
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        ix = int((h @ W2 + b2).argmax(dim=1).item())
        if ix == 0:
            break
        context = context[1:] + [ix]
        out.append(itos[ix])
    print("greedy:", "".join(out))
