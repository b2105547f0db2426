"""Small float64 models for the model-parallel scenarios: the same model in one process and split over ranks.

Each builder takes a seed, so rank r can build its copy with another seed (the parallel
strategies must still end up with rank 0's weights) and the one-process reference with
rank 0's seed.
"""

import math

import numpy as np

import minitorch
from minitorch import nn


def mlp(seed, d_in=6, hidden=8, d_out=5):
    """Linear(d_in, hidden) - ReLU - Linear(hidden, d_out), named fc1, act, fc2."""
    minitorch.manual_seed(seed)
    model = nn.Sequential()
    model.fc1 = nn.Linear(d_in, hidden)
    model.act = nn.ReLU()
    model.fc2 = nn.Linear(hidden, d_out)
    return model.double()


class Attention(nn.Module):
    """Multi-head self-attention with separate q, k, v and output projections.

    The number of heads is read from q's width, so the same code runs whole (all heads)
    and column-parallel (this rank's heads only).
    """

    def __init__(self, embed, heads):
        super().__init__()
        self.head_dim = embed // heads
        self.q, self.k, self.v, self.out = (nn.Linear(embed, embed) for _ in range(4))

    def forward(self, x):
        n, length, _ = x.shape
        q, k, v = self.q(x), self.k(x), self.v(x)
        heads = q.shape[-1] // self.head_dim

        def split(t):
            return t.reshape(n, length, heads, self.head_dim).transpose(1, 2)

        scores = split(q) @ split(k).transpose(-2, -1) / math.sqrt(self.head_dim)
        mixed = scores.softmax(-1) @ split(v)
        return self.out(mixed.transpose(1, 2).reshape(n, length, heads * self.head_dim))


def attention(seed, embed=16, heads=4):
    minitorch.manual_seed(seed)
    return Attention(embed, heads).double()


def layers(seed, n_stages, width=6, classes=3):
    """``2 * n_stages`` Linear layers with Tanh between: stage s gets layers 2s and 2s + 1."""
    minitorch.manual_seed(seed)
    modules = []
    for i in range(2 * n_stages):
        modules.append(nn.Linear(width, classes if i == 2 * n_stages - 1 else width))
        if i < 2 * n_stages - 1:
            modules.append(nn.Tanh())
    return nn.Sequential(*modules).double()


def stage_of(model, stage, n_stages):
    """The modules of ``model`` (from ``layers``) that stage ``stage`` runs, as a Sequential."""
    modules = list(model)
    per = 4  # Linear, Tanh, Linear, Tanh
    return nn.Sequential(*modules[stage * per: (stage + 1) * per if stage < n_stages - 1 else None])


def data(n=8, width=6, classes=3, seed=1):
    rng = np.random.default_rng(seed)
    return minitorch.tensor(rng.normal(size=(n, width))), minitorch.tensor(rng.integers(0, classes, size=n))


def flat(tensors):
    return np.concatenate([np.asarray(t).ravel() for t in tensors])


def max_difference(a, b):
    return float(np.abs(np.asarray(a) - np.asarray(b)).max())
