"""A character-level language model, trained from the command line in about a minute.

    python -m minitorch.examples.charlm --model lstm
    python -m minitorch.examples.charlm --model transformer --epochs 8 --temperature 0.7

The corpus needs no download: it is the documentation that ships inside Python itself,
the docstrings of a fixed list of standard-library modules (a few hundred KB of English
about programming), reduced to printable ASCII. 90% trains, the last 10% validates.

Each training step takes ``batch`` random windows of ``context`` characters and learns to
predict every next character (cross-entropy over the vocabulary). Models:

- ``lstm``: Embedding(V, 64) -> LSTM(64, 256) -> Linear(256, V).
- ``transformer``: token + position embeddings (d_model 128) -> blocks of
  [LayerNorm -> causal MultiheadAttention (4 heads) -> +residual -> LayerNorm -> MLP
  (GELU) -> +residual] -> LayerNorm -> Linear(128, V).

Adam, gradient norm clipped to 1. Each epoch prints the training and validation loss
(nats per character) and a short sample; the end prints longer samples drawn with
temperature sampling (lower temperature: safer, more repetitive text).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import math
import string
import sys
import time
import warnings
from typing import Any

import numpy as np

import minitorch
from minitorch import nn
from minitorch.nn import functional as F

# Modules whose docstrings make the corpus (all in every CPython since 3.10).
CORPUS_MODULES = (
    "argparse", "ast", "asyncio", "base64", "bisect", "calendar", "collections", "configparser",
    "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib", "email", "enum",
    "fractions", "ftplib", "functools", "gettext", "glob", "gzip", "heapq", "hmac", "html",
    "http.client", "http.server", "imaplib", "inspect", "io", "ipaddress", "itertools", "json",
    "locale", "logging", "mailbox", "math", "mimetypes", "operator", "optparse", "os", "pathlib",
    "pickle", "pprint", "pydoc", "queue", "random", "re", "shlex", "shutil", "smtplib", "socket",
    "statistics", "string", "subprocess", "tarfile", "tempfile", "textwrap", "threading", "timeit",
    "tkinter", "trace", "traceback", "typing", "unittest", "urllib.parse", "urllib.request", "uuid",
    "warnings", "wave", "weakref", "zipfile",
)  # fmt: skip
_KEEP = set(string.ascii_letters + string.digits + string.punctuation + " \n")


def load_corpus(max_chars: int = 400_000) -> str:
    """The stdlib's docstrings as one printable-ASCII text (deterministic for one Python version)."""
    parts: list[str] = []
    with warnings.catch_warnings():  # typing.io and friends warn when their docstrings are read
        warnings.simplefilter("ignore", DeprecationWarning)
        for name in CORPUS_MODULES:
            parts.extend(_docstrings(name))
    text = "\n\n".join(parts).replace("\t", "    ")
    return "".join(c for c in text if c in _KEEP)[:max_chars]


def _docstrings(name: str) -> list[str]:
    """The docstrings (over 40 characters) of module ``name`` and of its own classes and functions."""
    try:
        module = importlib.import_module(name)
    except ImportError:  # e.g. tkinter missing from a minimal Python
        return []
    docs = [inspect.getdoc(module) or ""]
    for attr in sorted(vars(module)):
        obj = getattr(module, attr, None)
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and getattr(obj, "__module__", "") == module.__name__:
            docs.append(inspect.getdoc(obj) or "")
    return [d for d in docs if len(d) > 40]


class Vocab:
    """Characters <-> integer ids (ids in sorted character order)."""

    def __init__(self, text: str) -> None:
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> np.ndarray:
        return np.array([self.index[c] for c in text], dtype=np.int64)

    def decode(self, ids: Any) -> str:
        return "".join(self.chars[int(i)] for i in ids)


class LSTMLanguageModel(nn.Module):
    """Embedding -> LSTM -> Linear: a score for every next character at every position."""

    def __init__(self, vocab: int, embed: int = 64, hidden: int = 256, layers: int = 1) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, idx: minitorch.Tensor, state: Any = None) -> tuple[minitorch.Tensor, Any]:
        out, state = self.lstm(self.embed(idx), state)
        return self.head(out), state


class Block(nn.Module):
    """One pre-norm transformer block: x + attention(LN(x)), then x + MLP(LN(x))."""

    def __init__(self, d_model: int, heads: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.last_weights: minitorch.Tensor | None = None  # per-head attention, when asked for

    def forward(self, x: minitorch.Tensor, need_weights: bool = False) -> minitorch.Tensor:
        T = x.shape[1]
        causal = minitorch.ones(T, T, dtype=minitorch.bool).triu(1)  # True = may NOT look (the future)
        h = self.ln1(x)
        a, w = self.attn(h, h, h, attn_mask=causal, need_weights=need_weights, average_attn_weights=False)
        self.last_weights = w
        x = x + a
        return x + self.mlp(self.ln2(x))


class TransformerLanguageModel(nn.Module):
    """Token + learned position embeddings -> blocks -> LayerNorm -> Linear to the vocabulary."""

    def __init__(self, vocab: int, d_model: int = 128, heads: int = 4, layers: int = 1, context: int = 64) -> None:
        super().__init__()
        self.context = context
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(context, d_model)
        self.blocks = nn.ModuleList([Block(d_model, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, idx: minitorch.Tensor, state: Any = None, need_weights: bool = False) -> tuple[Any, Any]:
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(minitorch.arange(T))
        for block in self.blocks:
            x = block(x, need_weights)
        return self.head(self.ln(x)), None


def make_model(kind: str, vocab: int, context: int = 64) -> nn.Module:
    """The model of the given kind ("lstm" or "transformer") with the sizes of the benchmark."""
    if kind == "lstm":
        return LSTMLanguageModel(vocab)
    if kind == "transformer":
        return TransformerLanguageModel(vocab, context=context)
    raise ValueError(f"unknown model {kind!r}: use 'lstm' or 'transformer'")


def batch(data: np.ndarray, rng: np.random.Generator, size: int, context: int) -> tuple[Any, Any]:
    """``size`` random windows of ``context`` characters and, shifted by one, their next characters."""
    starts = rng.integers(0, len(data) - context - 1, size)
    rows = starts[:, None] + np.arange(context)
    return minitorch.tensor(data[rows]), minitorch.tensor(data[rows + 1])


def loss_of(model: nn.Module, x: minitorch.Tensor, y: minitorch.Tensor) -> minitorch.Tensor:
    """Mean cross-entropy of the next-character predictions, in nats per character."""
    logits, _ = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def evaluate(model: nn.Module, data: np.ndarray, context: int, batches: int = 8, seed: int = 1234) -> float:
    """Validation loss on fixed random windows (the same ones every epoch)."""
    rng = np.random.default_rng(seed)
    model.eval()
    with minitorch.no_grad():
        total = sum(loss_of(model, *batch(data, rng, 32, context)).item() for _ in range(batches))
    model.train()
    return total / batches


def generate(model: nn.Module, vocab: Vocab, prompt: str = "The ", length: int = 200, temperature: float = 0.8,
             seed: int = 0, context: int = 64) -> str:  # fmt: skip
    """Sample ``length`` characters after ``prompt``: each from softmax(logits / temperature)."""
    rng = np.random.default_rng(seed)
    ids = list(vocab.encode(prompt))
    model.eval()
    state = None
    with minitorch.no_grad():
        feed = ids
        for _ in range(length):
            if isinstance(model, LSTMLanguageModel):  # the state carries the past: feed only what is new
                logits, state = model(minitorch.tensor([feed]), state)
            else:  # attention looks back itself: feed the last ``context`` characters
                logits, _ = model(minitorch.tensor([ids[-context:]]))
            z = logits.numpy()[0, -1].astype(np.float64) / max(temperature, 1e-6)
            p = np.exp(z - z.max())
            nxt = int(rng.choice(len(p), p=p / p.sum()))
            ids.append(nxt)
            feed = [nxt]
    model.train()
    return vocab.decode(ids)


def train(model_kind: str = "lstm", epochs: int = 6, steps_per_epoch: int = 150, batch_size: int = 32,
          context: int = 64, lr: float = 3e-3, seed: int = 0, progress: bool = True, temperature: float = 0.8,
          log: Any = print, corpus: str | None = None, sample_chars: int = 300) -> dict[str, Any]:  # fmt: skip
    """Train, printing one line (and a sample) per epoch; returns the history, model, vocab and samples."""
    from tqdm.auto import tqdm

    text = load_corpus() if corpus is None else corpus
    vocab = Vocab(text)
    data = vocab.encode(text)
    split = int(0.9 * len(data))
    train_data, val_data = data[:split], data[split:]
    minitorch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = make_model(model_kind, len(vocab), context)
    opt = minitorch.optim.Adam(model.parameters(), lr=lr)
    history = []
    log(f"corpus: {len(text):,} characters, vocabulary {len(vocab)}; model {model_kind}, "
        f"{sum(p.data.size for p in model.parameters()):,} parameters")  # fmt: skip
    for epoch in range(1, epochs + 1):
        start, losses = time.perf_counter(), []
        steps = tqdm(range(steps_per_epoch), desc=f"epoch {epoch}/{epochs}", leave=False, disable=not progress,
                     file=sys.stderr)  # fmt: skip
        for _ in steps:
            loss = loss_of(model, *batch(train_data, rng, batch_size, context))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
            steps.set_postfix(loss=f"{losses[-1]:.3f}")
        val = evaluate(model, val_data, context)
        row = {"epoch": epoch, "loss": float(np.mean(losses)), "val_loss": val, "seconds": time.perf_counter() - start}
        row["sample"] = generate(model, vocab, length=min(60, sample_chars), temperature=temperature, seed=epoch,
                                 context=context)  # fmt: skip
        history.append(row)
        log(f"epoch {epoch:3d}/{epochs}  train loss {row['loss']:.3f}  val loss {val:.3f} "
            f"({val / math.log(2):.2f} bits/char)  {row['seconds']:.1f}s  | {row['sample']!r}")  # fmt: skip
    samples = [generate(model, vocab, prompt, sample_chars, temperature, seed=i, context=context)
               for i, prompt in enumerate(["The ", "Return ", "If the "])]  # fmt: skip
    return {"history": history, "model": model, "vocab": vocab, "samples": samples}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: train and print the history and samples."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=["lstm", "transformer"], default="lstm")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--steps", type=int, default=150, help="training steps per epoch")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--context", type=int, default=64, help="characters per training window")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="hide the tqdm progress bar")
    args = parser.parse_args(argv)
    result = train(args.model, args.epochs, args.steps, args.batch_size, args.context, args.lr, args.seed,
                   progress=not args.no_progress, temperature=args.temperature)  # fmt: skip
    print(f"\nsamples (temperature {args.temperature:.2f}):")
    for sample in result["samples"]:
        print("-" * 60)
        print(sample)
    return 0


if __name__ == "__main__":
    sys.exit(main())
