"""A tiny GPT trained on a few lines of text, in the style of Karpathy's nanoGPT and minGPT.

What such a script does before and around its model: seeds (``torch.cuda.manual_seed_all``
too), sets ``torch.backends.cuda.matmul.allow_tf32``, picks a dtype from a table that names
``torch.bfloat16``, makes a ``GradScaler`` that is disabled unless float16, and draws
"endless" random batches with ``RandomSampler(replacement=True, num_samples=int(1e10))``
(minGPT's trainer; the DataLoader must not draw ten billion indices first). The model:
token and position embeddings, pre-norm blocks of causal self-attention (one
``c_attn`` Linear for q, k, v; the mask a ``tril`` buffer; ``masked_fill`` then softmax)
and a GELU MLP, the output layer tied to the token embedding, AdamW with weight decay
on the matrices only, gradient clipping, ``@torch.no_grad()`` evaluation, and the whole
model saved and loaded back with ``torch.save(model)`` / ``torch.load(..., weights_only=False)``.

The weights start from ``torch.randn``/``normal_`` after ``torch.manual_seed``, and the
batches are random: with MiniTorch's CPU stream being PyTorch's, the numbers are PyTorch's.
"""

import math
import os
import tempfile
from contextlib import nullcontext

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.sampler import RandomSampler

torch.manual_seed(1337)
torch.cuda.manual_seed_all(1337)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device = "cpu"  # the corpus runs on the CPU under both frameworks
dtype = "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float32"
ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
ctx = nullcontext() if device == "cpu" else torch.amp.autocast(device_type=device, dtype=ptdtype)
scaler = torch.cuda.amp.GradScaler(enabled=(dtype == "float16"))
print(f"device {device}, dtype {ptdtype}, scaler enabled: {scaler.is_enabled()}")

text = (
    "the cat sat on the mat. the dog sat on the log. a cat and a dog met on a mat.\n"
    "the log was wet, the mat was dry. the cat ran, the dog sat. a mat, a log, a cat.\n"
) * 4
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print(f"{len(text)} characters, {len(chars)} distinct; data {tuple(data.shape)} {data.dtype}")


class CharDataset(Dataset):
    """Every block_size window of the text, and the same window shifted by one (minGPT's)."""

    def __init__(self, data, block_size):
        self.data, self.block_size = data, block_size

    def __len__(self):
        return len(self.data) - self.block_size

    def __getitem__(self, idx):
        chunk = self.data[idx : idx + self.block_size + 1]
        return chunk[:-1], chunk[1:]


class CausalSelfAttention(nn.Module):
    """Multi-head masked self-attention: each position attends to itself and the positions before it."""

    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head, self.n_embd = n_head, n_embd
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, n_embd, dropout):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer=2, n_head=2, n_embd=32, dropout=0.0):
        super().__init__()
        self.block_size = block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            drop=nn.Dropout(dropout),
            h=nn.ModuleList([Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):  # scaled init of the residual projections (GPT-2)
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        """AdamW, with weight decay on the 2-D parameters only (matrices and embeddings)."""
        params = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay = [p for p in params.values() if p.dim() >= 2]
        no_decay = [p for p in params.values() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
        print(f"decayed tensors: {len(decay)} with {sum(p.numel() for p in decay)} parameters, "
              f"not decayed: {len(no_decay)} with {sum(p.numel() for p in no_decay)}")
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        """Greedy continuation (nanoGPT samples; the argmax keeps the output independent of the stream)."""
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -self.block_size :])
            idx = torch.cat((idx, logits[:, -1, :].argmax(dim=-1, keepdim=True)), dim=1)
        return idx


block_size, batch_size = 16, 8
train_dataset = CharDataset(data, block_size)
loader = DataLoader(train_dataset, sampler=RandomSampler(train_dataset, replacement=True, num_samples=int(1e10)),
                    shuffle=False, pin_memory=False, batch_size=batch_size, num_workers=0)
print(f"batches per epoch: {len(loader)}")
model = GPT(len(chars), block_size).to(device)
print(f"number of parameters: {sum(p.numel() for p in model.parameters())}")
optimizer = model.configure_optimizers(weight_decay=0.1, learning_rate=3e-3, betas=(0.9, 0.99))


@torch.no_grad()
def estimate_loss():
    """The mean loss over fixed windows of the text (the same ones every time)."""
    model.eval()
    starts = torch.arange(0, len(data) - block_size - 1, 37)
    X = torch.stack([data[i : i + block_size] for i in starts.tolist()])
    Y = torch.stack([data[i + 1 : i + 1 + block_size] for i in starts.tolist()])
    _, loss = model(X, Y)
    model.train()
    return loss.item()


print(f"step 0: eval loss {estimate_loss():.4f}")
data_iter = iter(loader)
for it in range(1, 121):
    X, Y = next(data_iter)
    with ctx:
        logits, loss = model(X, Y)
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    if it % 40 == 0:
        print(f"step {it}: train loss {loss.item():.4f}, eval loss {estimate_loss():.4f}")

print("logits:", tuple(logits.shape), logits.dtype)
start = torch.tensor([[stoi["t"]]])
print("greedy:", repr("".join(itos[i] for i in model.generate(start, 20)[0].tolist())))

# Save the whole model and load it back, as minGPT-era scripts do.
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "ckpt.pt")
    torch.save(model, path)
    again = torch.load(path, weights_only=False)
    tied = again.transformer.wte.weight is again.lm_head.weight
    same = torch.equal(again(start)[0], model(start)[0])
    print(f"reloaded {type(again).__name__}: same output {same}, weights still tied {tied}")
