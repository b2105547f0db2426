"""Lesson 18's measurements: where a small transformer's memory goes, and how each strategy divides it.

    measured = measure_transformer()          # bytes of parameters, gradients, Adam state, activations
    table = per_rank_memory(measured, ranks=4)
    draw_memory(ax, table)

The transformer is lesson 13's (``minitorch.examples.charlm``). Every number is counted,
not estimated: the parameters' and gradients' bytes, Adam's state after one step, and the
activations, the arrays the graph of one forward keeps for backward (the parameters
themselves left out). Tensor parallelism splits the layers' insides over the ranks, so the
activations are also counted in two parts: those inside the split regions (the attention's
per-head tensors, the MLP's hidden units, the inputs of the row-parallel layers) and the
rest (the residual stream, which every rank keeps whole).
"""

from typing import Any

import numpy as np

import minitorch
from minitorch import nn, optim
from minitorch.autograd import graph
from minitorch.examples.charlm import TransformerLanguageModel
from widgets.i18n import _

PARTS = ("parameters", "gradients", "Adam state", "activations")


def _owner(array: Any) -> Any:
    return array if getattr(array, "base", None) is None else array.base


def _split_by_tensor_parallelism(name: str) -> bool:
    """Whether tensor parallelism (Megatron) splits this parameter of the transformer over the ranks."""
    return (name.endswith(("attn.in_proj_weight", "attn.in_proj_bias", "attn.out_proj.weight", "mlp.0.weight",
                           "mlp.0.bias", "mlp.2.weight")))


def measure_transformer(layers: int = 4, batch: int = 16, context: int = 64, vocab: int = 96,
                        d_model: int = 128) -> dict[str, int]:
    """Bytes of one training step's parameters, gradients, Adam state and activations (float32)."""
    minitorch.manual_seed(0)
    model = TransformerLanguageModel(vocab, d_model=d_model, layers=layers, context=context)
    rng = np.random.default_rng(0)
    tokens = minitorch.tensor(rng.integers(0, vocab, size=(batch, context + 1)))
    logits, _unused = model(tokens[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1))
    named = dict(model.named_parameters())
    row_parallel = {id(p) for n, p in named.items() if n.endswith(("attn.out_proj.weight", "mlp.2.weight"))}
    params = {id(_owner(p.data)) for p in named.values()}
    seen: dict[int, tuple[int, bool]] = {}
    assert loss.grad_fn is not None
    for node in graph.nodes(loss.grad_fn):
        feeds_row_parallel = any(id(nxt) in row_parallel for nxt in node.next_nodes)
        for array in node._saved:
            if not isinstance(array, np.ndarray) or id(_owner(array)) in params or id(array) in seen:
                continue
            split = array.ndim == 4 or array.shape[-1:] == (4 * d_model,) or (feeds_row_parallel and array.ndim == 3)
            seen[id(array)] = (array.nbytes, split)
    loss.backward()
    adam = optim.Adam(model.parameters(), lr=1e-3)
    adam.step()
    state = sum(a.nbytes for s in adam.state.values() for a in s.values() if isinstance(a, np.ndarray))
    return {
        "parameters": sum(p.data.nbytes for p in named.values()),
        "parameters split by TP": sum(p.data.nbytes for n, p in named.items() if _split_by_tensor_parallelism(n)),
        "gradients": sum(p.grad.data.nbytes for p in named.values() if p.grad is not None),
        "Adam state": state,
        "activations": sum(b for b, _split in seen.values()),
        "activations split by TP": sum(b for b, split in seen.values() if split),
        "count": sum(p.numel() for p in named.values()),
    }


def per_rank_memory(measured: dict[str, int], ranks: int, microbatches: int = 8) -> dict[str, dict[str, float]]:
    """Bytes each rank keeps, per part, for one device and each strategy on ``ranks`` ranks (the batch split N ways).

    Data parallel (DDP): everything but the activations whole on every rank. ZeRO-1: the
    Adam state split too. Tensor parallel: the split parameters (and their gradients and
    state) and split activations 1/N each, the rest whole. Pipeline (1F1B, ``microbatches``
    microbatches, ``ranks`` stages, the layers evenly spread): 1/N of the model per stage;
    stage 0 keeps the activations of N microbatches of its layers.
    """
    p, g, s, a = (measured[k] for k in PARTS)
    n = ranks
    p_split, a_split = measured["parameters split by TP"], measured["activations split by TP"]
    tp_share = (p - p_split + p_split / n) / p
    return {
        _("one device"): {"parameters": p, "gradients": g, "Adam state": s, "activations": a},
        _("data parallel"): {"parameters": p, "gradients": g, "Adam state": s, "activations": a / n},
        _("ZeRO-1"): {"parameters": p, "gradients": g, "Adam state": s / n, "activations": a / n},
        _("tensor parallel"): {"parameters": p * tp_share, "gradients": g * tp_share, "Adam state": s * tp_share,
                               "activations": a - a_split + a_split / n},
        _("pipeline (1F1B)"): {"parameters": p / n, "gradients": g / n, "Adam state": s / n,
                               "activations": a / n * min(n, microbatches) / microbatches},
    }


def part_label(part: str) -> str:
    """The name of a part of the memory, in the course's language."""
    return {"parameters": _("parameters"), "gradients": _("gradients"), "Adam state": _("Adam state"),
            "activations": _("activations")}[part]


def draw_memory(ax: Any, table: dict[str, dict[str, float]], ranks: int) -> None:
    """Stacked bars: each strategy's bytes per rank, in MB, by part."""
    colors = ["#4C72B0", "#55A868", "#C44E52", "#8172B2"]
    names = list(table)
    bottom = np.zeros(len(names))
    for part, color in zip(PARTS, colors):
        heights = np.array([table[name][part] / 1e6 for name in names])
        ax.bar(names, heights, bottom=bottom, color=color, label=part_label(part))
        bottom += heights
    for i, total in enumerate(bottom):
        ax.text(i, total, f"{total:.1f}", ha="center", va="bottom", fontsize=9)
    ax.set_ylim(0, bottom.max() * 1.12)  # room for the totals above the bars
    ax.set_ylabel(_("MB per rank"))
    ax.set_title(_("memory per rank, {ranks} ranks (one device: all of it)", ranks=ranks), fontsize=10)
    ax.legend(loc="upper right", fontsize=9)
    ax.tick_params(axis="x", labelsize=9)
