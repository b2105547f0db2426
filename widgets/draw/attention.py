"""``attention_map(weights, tokens)``: where each query position looks, as a heatmap.

    out, w = mha(x, x, x, need_weights=True, average_attn_weights=False)   # w: (N, heads, L, S)
    attention_map(w[0], tokens=list("hello"))                              # one sequence
    attention_map([w1[0], w2[0]], tokens)                                  # one entry per layer

Rows are queries (the position doing the looking), columns keys (the positions looked
at); each row sums to 1. ``weights`` may be (L, S), (heads, L, S) or (layers, heads, L, S),
or a list with one (heads, L, S) per layer. In a notebook two sliders pick the layer and
the head (hidden when there is only one); elsewhere the first map is drawn once.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from widgets.draw import plotting
from widgets.i18n import _


def _as_array(weights: Any) -> np.ndarray:
    """(layers, heads, L, S) float array from a Tensor, an array or a list of them."""
    if isinstance(weights, (list, tuple)):
        return np.stack([_as_array(w)[0] for w in weights])
    data = weights.detach().numpy() if hasattr(weights, "detach") else np.asarray(weights)
    data = np.asarray(data, dtype=np.float64)
    if data.ndim not in (2, 3, 4):
        raise ValueError(_("attention_map: weights must be (L, S), (heads, L, S) or (layers, heads, L, S), got "
                           "shape {shape}", shape=data.shape))
    return data.reshape((1,) * (4 - data.ndim) + data.shape)


def draw(ax: Axes, weights: np.ndarray, tokens: Sequence[Any] | None = None, title: str = "") -> AxesImage:
    """One (L, S) heatmap on ``ax``: queries down, keys across, tokens as tick labels."""
    L, S = weights.shape
    image = ax.imshow(weights, cmap="viridis", vmin=0, vmax=max(float(weights.max()), 1e-9), aspect="auto")
    if tokens is not None:
        shown = [repr(t)[1:-1] if isinstance(t, str) else str(t) for t in tokens]
        ax.set_xticks(range(S), shown[:S], fontsize=7, rotation=90)
        ax.set_yticks(range(L), shown[-L:] if len(shown) >= L else shown, fontsize=7)
    ax.set_xlabel(_("key (looked at)"))
    ax.set_ylabel(_("query (looking)"))
    ax.set_title(title, fontsize=9)
    return image


def figure(weights: Any, tokens: Sequence[Any] | None = None, layer: int = 0, head: int = 0) -> Figure:
    """A matplotlib figure of one layer's head (``weights`` as ``attention_map`` takes them)."""
    import matplotlib.pyplot as plt

    data = _as_array(weights)
    fig, ax = plt.subplots(figsize=(4.6, 4))
    image = draw(ax, data[layer, head], tokens, _("layer {layer}, head {head}", layer=layer, head=head))
    fig.colorbar(image, ax=ax, fraction=0.046)
    fig.tight_layout()
    return fig


def attention_map(weights: Any, tokens: Sequence[Any] | None = None, display: bool = True) -> Any:
    """A heatmap of attention weights with sliders over layers and heads; returns the widget (or None)."""
    data = _as_array(weights)
    layers, heads, L, S = data.shape
    if tokens is not None and len(tokens) < max(L, S):
        raise ValueError(_("attention_map: {n} tokens for {L} queries x {S} keys", n=len(tokens), L=L, S=S))
    if not plotting.in_ipython():
        import matplotlib.pyplot as plt

        plt.close(figure(data, tokens))
        return None
    import ipywidgets as W
    import matplotlib.pyplot as plt

    layer = W.IntSlider(0, 0, layers - 1, description=_("layer"), layout=W.Layout(display="" if layers > 1 else "none"))
    head = W.IntSlider(0, 0, heads - 1, description=_("head"), layout=W.Layout(display="" if heads > 1 else "none"))
    out = W.Output()

    def redraw(_: object = None) -> None:
        with out:
            out.clear_output(wait=True)
            fig = figure(data, tokens, layer.value, head.value)
            plt.show(fig)

    layer.observe(redraw, "value")
    head.observe(redraw, "value")
    redraw()
    box = W.VBox([W.HBox([layer, head]), out])
    if display:
        from IPython.display import display as show

        show(box)
    return box
