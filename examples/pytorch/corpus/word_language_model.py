"""A word-level language model (LSTM or Transformer), in the style of pytorch/examples' word_language_model.

Its shape: a ``Dictionary`` and a ``Corpus`` that tokenize train/valid text files into word
ids, ``batchify`` into columns, ``get_batch`` windows of ``bptt`` words, an ``RNNModel``
(embedding, LSTM, linear decoder, tied weights) or a ``TransformerModel`` (positional
encoding, ``nn.TransformerEncoder``, the causal mask from
``nn.Transformer.generate_square_subsequent_mask``), hidden states detached between
batches (``repackage_hidden``), ``clip_grad_norm_`` and plain SGD written by hand, the
learning rate divided by 4 when the validation loss stops improving, and perplexities.
``python word_language_model.py transformer`` trains the Transformer.

It updates as the original does, ``p.data.add_(p.grad, alpha=-lr)``: under
``run_as_torch`` a program's ``.data`` is PyTorch's (docs/DIFFERENCES-FROM-PYTORCH.md).
The text is made here (a few hundred words from a small grammar) and written to a
temporary folder, so nothing is downloaded; the weights start from ``uniform_`` after
``torch.manual_seed``, whose CPU stream MiniTorch reproduces: the numbers are PyTorch's.
"""

import math
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.onnx  # noqa: F401  (imported by the original for --onnx-export)

model_type = sys.argv[1] if len(sys.argv) > 1 else "lstm"
torch.manual_seed(1111)


class Dictionary:
    def __init__(self):
        self.word2idx, self.idx2word = {}, []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    """train.txt and valid.txt of ``path`` as 1-D tensors of word ids (<eos> ends every line)."""

    def __init__(self, path):
        self.dictionary = Dictionary()
        self.train = self.tokenize(os.path.join(path, "train.txt"))
        self.valid = self.tokenize(os.path.join(path, "valid.txt"))

    def tokenize(self, path):
        with open(path, encoding="utf8") as f:
            for line in f:
                for word in line.split() + ["<eos>"]:
                    self.dictionary.add_word(word)
        with open(path, encoding="utf8") as f:
            idss = [torch.tensor([self.dictionary.word2idx[w] for w in line.split() + ["<eos>"]], dtype=torch.int64)
                    for line in f]
        return torch.cat(idss)


def make_text(n_lines, offset):
    """Sentences from a tiny grammar, chosen by index arithmetic (no random draws)."""
    subjects = ["the cat", "a dog", "the bird", "my friend", "the old man", "a child"]
    verbs = ["sees", "likes", "follows", "finds", "hears"]
    objects = ["the river", "a tree", "the house", "a red ball", "the garden", "the moon"]
    lines = []
    for i in range(offset, offset + n_lines):
        s, v, o = subjects[i % 6], verbs[(i * 3) % 5], objects[(i * 5 + i // 6) % 6]
        lines.append(f"{s} {v} {o} ." if i % 4 else f"{s} {v} {o} and {subjects[(i + 2) % 6]} {verbs[i % 5]} it .")
    return "\n".join(lines) + "\n"


folder = tempfile.mkdtemp()
for name, (n, offset) in {"train.txt": (120, 0), "valid.txt": (20, 500)}.items():
    with open(os.path.join(folder, name), "w", encoding="utf8") as f:
        f.write(make_text(n, offset))
corpus = Corpus(folder)
print(f"vocabulary {len(corpus.dictionary)} words; train {tuple(corpus.train.shape)}, "
      f"valid {tuple(corpus.valid.shape)}")


def batchify(data, bsz):
    """Cut the word ids into bsz columns (dropping what does not fill the last row)."""
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


batch_size, eval_batch_size, bptt = 10, 5, 12
train_data = batchify(corpus.train, batch_size)
val_data = batchify(corpus.valid, eval_batch_size)
print("train_data", train_data.shape, train_data.dtype, "val_data", val_data.shape)


def get_batch(source, i):
    """Words i .. i+seq_len of every column, and the words one later as targets."""
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].reshape(-1)


class RNNModel(nn.Module):
    """Embedding -> LSTM -> linear decoder, the decoder tied to the embedding."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.0):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight  # tie_weights (needs nhid == ninp)
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


class PositionalEncoding(nn.Module):
    """Adds the sinusoids of "Attention Is All You Need" to the embeddings."""

    def __init__(self, d_model, dropout=0.0, max_len=500):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(0), :])


class TransformerModel(nn.Module):
    """Embedding, positional encoding, a causal TransformerEncoder and a linear decoder."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.0):
        super().__init__()
        self.ninp, self.ntoken = ninp, ntoken
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        layer = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.decoder = nn.Linear(ninp, ntoken)
        nn.init.uniform_(self.input_emb.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

    def forward(self, src):
        mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        src = self.pos_encoder(self.input_emb(src) * math.sqrt(self.ninp))
        output = self.decoder(self.transformer_encoder(src, mask))
        return F.log_softmax(output, dim=-1).view(-1, self.ntoken)


ntokens = len(corpus.dictionary)
if model_type == "transformer":
    model = TransformerModel(ntokens, 16, 2, 32, 1)
else:
    model = RNNModel(ntokens, 16, 16, 1)
print(f"{type(model).__name__}: {sum(p.numel() for p in model.parameters())} parameters")
criterion = nn.NLLLoss()


def repackage_hidden(h):
    """Cut the hidden state off from the previous batch's graph."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def run(data_source, bsz, lr=None):
    """One pass over ``data_source``: trains with SGD when ``lr`` is given; returns the mean loss."""
    model.train() if lr is not None else model.eval()
    total, count = 0.0, 0
    hidden = model.init_hidden(bsz) if model_type != "transformer" else None
    with torch.set_grad_enabled(lr is not None):
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            model.zero_grad()
            if model_type == "transformer":
                output = model(data)
            else:
                hidden = repackage_hidden(hidden)
                output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            if lr is not None:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-lr)
            total += len(data) * loss.item()
            count += len(data)
    return total / count


lr, best_val_loss = 20.0 if model_type != "transformer" else 1.0, None
# Four epochs: at lr 20 two float32 trainings that sum in another order stay within the last
# printed digit for about five epochs, then part (the sixth already differs by 5% in valid ppl).
for epoch in range(1, 5):
    train_loss = run(train_data, batch_size, lr)
    val_loss = run(val_data, eval_batch_size)
    print(f"| end of epoch {epoch:3d} | lr {lr:5.2f} | train ppl {math.exp(train_loss):8.2f} | "
          f"valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}")
    if best_val_loss is None or val_loss < best_val_loss:
        best_val_loss = val_loss
    else:
        lr /= 4.0
print(f"best valid ppl {math.exp(best_val_loss):8.2f}")
