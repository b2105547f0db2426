"""Recurrent layers as whole-sequence ops: one node runs every time step, forward and back.

An RNN written with small ops records about a dozen nodes per time step; at 64 steps
that is 800 nodes whose Python overhead dominates. Each op here is one node for a whole
layer, and computes what lesson 12 teaches:

1. forward projects the inputs of ALL time steps with one matrix product
   (x W_ih^T + b), then loops over time doing only what must be sequential:
   h W_hh^T and the gate arithmetic;
2. backward walks time in reverse (backpropagation through time), collecting the
   gradient of each step's gate pre-activations; then each weight's gradient is one
   matrix product over all steps.

Forward saves its inputs and its output (the hidden states of every step), nothing else.
Backward recomputes the gates from them: with every h_{t-1} known, the pre-activations of
all steps are again two matrix products, no loop (the LSTM's cell states then take one
elementwise pass over time).
Backward writes into no array: each step's gradients are collected in a list and stacked.
So with ``create_graph=True`` the same lines run on values that record a graph
(``autograd/graph_mode.py``), and the layers can be differentiated twice.

Shapes: x (T, N, I), h0 / c0 (N, H), W_ih (G*H, I), W_hh (G*H, H), biases (G*H,), with
PyTorch's gate order (LSTM: i, f, g, o; GRU: r, z, n) and every per-step array batch-major,
(N, features). Each op returns one array (a MiniTorch Function has one output): the hidden
states of every step, and for the LSTM the final cell state after them, both flattened into
one 1-D array (``lstm_layer`` cuts it apart). An LSTM with a projection (``proj_size``,
PyTorch's ``weight_hr``) has hidden states of size P = W_hr.shape[0]: h_t = W_hr (o * tanh(c_t)),
and W_hh is (4*H, P). A bidirectional layer is two of these ops, the second run on the
time-flipped sequence (``nn/recurrent.py``).

On the CPU, ``nn.LSTM`` and ``nn.GRU`` run fast kernels of these ops: the same arithmetic
arranged for the processor (``minitorch/kernels/cpu/lstm.py``: another memory layout, one
product per step; ``gru.py``: the gates kept for backward). Their results are these to
rounding; ``minitorch.kernels.use_fast_kernels(False)`` runs this file instead.
"""

from __future__ import annotations

from typing import Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError
from minitorch.functions.indexing import getitem
from minitorch.functions.shape import reshape
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase


def _sigmoid(xp: Any, z: Array) -> Array:
    """1 / (1 + exp(-z)), written as (1 + tanh(z / 2)) / 2: the same function, and it never overflows."""
    return 0.5 * (1 + xp.tanh(0.5 * z))


def _project(x: Array, w: Array, bias: Array | None) -> Array:
    """x W^T + bias for every step at once: (T, N, K) -> (T, N, rows of W), one matrix product."""
    T, N, K = x.shape
    # Sizes spelled out, not -1: an empty batch (N = 0) reshapes too, as in PyTorch.
    out = (x.reshape(T * N, K) @ w.T).reshape(T, N, w.shape[0])
    return out if bias is None else out + bias


def _both_biases(b_ih: Array | None, b_hh: Array | None) -> Array | None:
    """b_ih + b_hh, or the one that is there, or None (where both go into one sum, one will do)."""
    if b_ih is None or b_hh is None:
        return b_hh if b_ih is None else b_ih
    return b_ih + b_hh


def _previous_states(xp: Any, h0: Array, hs: Array) -> Array:
    """h_0 .. h_{T-1} (T, N, H), the state each step starts from, from h0 and h_1 .. h_T."""
    return xp.concatenate([h0[None], hs[:-1]])


def _needs(ctx: BackwardNode, first_weight: int) -> tuple[bool, ...]:
    """needs_input_grad of x and of W_ih, W_hh, b_ih, b_hh (which start at ``first_weight``)."""
    n = ctx.needs_input_grad
    return (n[0], *n[first_weight : first_weight + 4])


def weight_grads(
    needs: tuple[bool, ...], x: Array, h_prev: Array, w_ih: Array, dz_in: Array, dz_hid: Array
) -> Gradients:
    """Gradients of x, W_ih, W_hh, b_ih, b_hh from the pre-activation gradients of all steps.

    ``dz_in`` (T, N, G*H) is the gradient of the input projection x_t W_ih^T + b_ih, ``dz_hid``
    that of the hidden projection h_{t-1} W_hh^T + b_hh (the same array except in the GRU).
    Every step uses the same weights, so their gradients are sums over the steps: with the
    steps stacked as rows, one matrix product each. ``needs``: whether x, W_ih, W_hh, b_ih
    and b_hh need a gradient (``_needs``).
    """
    need_x, need_wih, need_whh, need_bih, need_bhh = needs
    T, N, GH = dz_in.shape
    d_in, d_hid = dz_in.reshape(T * N, GH), dz_hid.reshape(T * N, GH)
    grad_x = (d_in @ w_ih).reshape(x.shape) if need_x else None
    grad_wih = d_in.T @ x.reshape(T * N, x.shape[2]) if need_wih else None
    grad_whh = d_hid.T @ h_prev.reshape(T * N, h_prev.shape[2]) if need_whh else None
    grad_bih = d_in.sum(axis=0) if need_bih else None
    grad_bhh = d_hid.sum(axis=0) if need_bhh else None
    return grad_x, grad_wih, grad_whh, grad_bih, grad_bhh


def lstm_gates(xp: Any, z: Array) -> tuple[Array, Array, Array, Array]:
    """The gates i, f, g, o from the pre-activations z (..., 4H): PyTorch's order, H columns each."""
    H = z.shape[-1] // 4
    i, f, o = _sigmoid(xp, z[..., :H]), _sigmoid(xp, z[..., H : 2 * H]), _sigmoid(xp, z[..., 3 * H :])
    return i, f, xp.tanh(z[..., 2 * H : 3 * H]), o


class LSTMLayer(Function):
    """One LSTM layer over a whole sequence (lesson 12's LSTM, every step in one node).

    Per step, with z = x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh cut into four H-wide gates:
    i, f, g, o = sigmoid(z_i), sigmoid(z_f), tanh(z_g), sigmoid(z_o),
    c_t = f * c_{t-1} + i * g,  h_t = o * tanh(c_t)  (times W_hr^T when there is a projection).
    Output, flat: h_1 .. h_T (T, N, P), then c_T (N, H); P = H without a projection.

    Backward (BPTT), from the last step to the first: the gradient reaching h_t is the
    loss's own plus what step t + 1 sends back; through h_t = o * tanh(c_t) it reaches o and
    c_t, whose gradient also gets f_{t+1} times the next step's (the "conveyor belt"); from
    there each gate's pre-activation, and through h_{t-1} W_hh^T the previous h.
    """

    @staticmethod
    def forward(
        ctx: BackwardNode,
        x: Array,
        h0: Array,
        c0: Array,
        w_ih: Array,
        w_hh: Array,
        b_ih: Array | None,
        b_hh: Array | None,
        w_hr: Array | None = None,
    ) -> Array:
        xp = ctx.xp
        x_part = _project(x, w_ih, _both_biases(b_ih, b_hh))  # every step's input part: one product
        h, c, hs = h0, c0, []
        for t in range(x.shape[0]):
            i, f, g, o = lstm_gates(xp, x_part[t] + h @ w_hh.T)
            c = f * c + i * g
            h = o * xp.tanh(c)
            if w_hr is not None:
                h = h @ w_hr.T
            hs.append(h.reshape(-1))
        out = xp.concatenate([*hs, c.reshape(-1)])
        ctx.save_for_backward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, out = ctx.saved_tensors
        T, N, _ = x.shape
        H, P = c0.shape[1], h0.shape[1]
        h_prev = _previous_states(xp, h0, out[: T * N * P].reshape(T, N, P))
        # The gates of every step again: knowing each h_{t-1}, two products and no loop ...
        i, f, g, o = lstm_gates(xp, _project(x, w_ih, _both_biases(b_ih, b_hh)) + _project(h_prev, w_hh, None))
        # ... and the cell states, one elementwise step at a time.
        cs = [c0]
        for t in range(T):
            cs.append(f[t] * cs[t] + i[t] * g[t])
        tanh_c = xp.tanh(xp.stack(cs[1:]))
        grad_hs = grad[: T * N * P].reshape(T, N, P)
        dh_next = xp.zeros_like(h0)  # what step t + 1 sends back to h_t (nothing, for the last step)
        dc = grad[T * N * P :].reshape(N, H)  # the gradient of c_T
        dzs, dhs = [], []
        for t in reversed(range(T)):
            dh = grad_hs[t] + dh_next
            if w_hr is not None:  # back through the projection h_t = u_t W_hr^T
                dhs.append(dh)
                dh = dh @ w_hr
            dc = dc + dh * o[t] * (1 - tanh_c[t] * tanh_c[t])
            dz = xp.concatenate(
                [
                    dc * g[t] * i[t] * (1 - i[t]),  # i scales g
                    dc * cs[t] * f[t] * (1 - f[t]),  # f scales the previous c
                    dc * i[t] * (1 - g[t] * g[t]),  # g is scaled by i
                    dh * tanh_c[t] * o[t] * (1 - o[t]),  # o scales tanh(c)
                ],
                axis=1,
            )
            dzs.append(dz)
            dh_next = dz @ w_hh
            dc = dc * f[t]  # the conveyor belt: to c_{t-1} through the forget gate only
        dz_all = xp.stack(dzs[::-1])  # (T, N, 4H), step t at t
        grads = weight_grads(_needs(ctx, 3), x, h_prev, w_ih, dz_all, dz_all)
        grad_whr = None
        if w_hr is not None and ctx.needs_input_grad[7]:  # sum over steps of dh_t^T u_t, u_t = o * tanh(c_t)
            grad_whr = xp.stack(dhs[::-1]).reshape(T * N, P).T @ (o * tanh_c).reshape(T * N, H)
        return grads[0], dh_next, dc, *grads[1:], grad_whr


class GRULayer(Function):
    """One GRU layer over a whole sequence, as PyTorch:

    r = sigmoid(W_ir x + b_ir + W_hr h + b_hr),  z = sigmoid(W_iz x + b_iz + W_hz h + b_hz),
    n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),  h' = (1 - z) * n + z * h.
    Output (T, N, H): h_1 .. h_T.
    """

    @staticmethod
    def forward(
        ctx: BackwardNode,
        x: Array,
        h0: Array,
        w_ih: Array,
        w_hh: Array,
        b_ih: Array | None,
        b_hh: Array | None,
    ) -> Array:
        xp = ctx.xp
        H = w_hh.shape[1]
        x_part = _project(x, w_ih, b_ih)  # every step's input part: one product
        h, hs = h0, []
        for t in range(x.shape[0]):
            h_part = h @ w_hh.T if b_hh is None else h @ w_hh.T + b_hh
            r = _sigmoid(xp, x_part[t, :, :H] + h_part[:, :H])
            z = _sigmoid(xp, x_part[t, :, H : 2 * H] + h_part[:, H : 2 * H])
            n = xp.tanh(x_part[t, :, 2 * H :] + r * h_part[:, 2 * H :])
            h = (1 - z) * n + z * h
            hs.append(h)
        out = xp.stack(hs)
        ctx.save_for_backward(x, h0, w_ih, w_hh, b_ih, b_hh, out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        x, h0, w_ih, w_hh, b_ih, b_hh, out = ctx.saved_tensors
        H = w_hh.shape[1]
        h_prev = _previous_states(xp, h0, out)
        # Every step's gates again, from its h_{t-1}: two products, no loop.
        x_part, h_part = _project(x, w_ih, b_ih), _project(h_prev, w_hh, b_hh)
        r = _sigmoid(xp, x_part[..., :H] + h_part[..., :H])
        z = _sigmoid(xp, x_part[..., H : 2 * H] + h_part[..., H : 2 * H])
        n = xp.tanh(x_part[..., 2 * H :] + r * h_part[..., 2 * H :])
        dh_next = xp.zeros_like(h0)
        d_ins, d_hids = [], []  # per step: the gradients of the input and the hidden projection
        for t in reversed(range(x.shape[0])):
            dh = grad[t] + dh_next
            dn = dh * (1 - z[t]) * (1 - n[t] * n[t])  # through tanh to n's pre-activation
            dz = dh * (h_prev[t] - n[t]) * z[t] * (1 - z[t])
            dr = dn * h_part[t, :, 2 * H :] * r[t] * (1 - r[t])
            d_ins.append(xp.concatenate([dr, dz, dn], axis=1))
            d_hids.append(xp.concatenate([dr, dz, dn * r[t]], axis=1))  # r scales W_hn h + b_hn
            dh_next = dh * z[t] + d_hids[-1] @ w_hh
        d_in, d_hid = xp.stack(d_ins[::-1]), xp.stack(d_hids[::-1])
        grads = weight_grads(_needs(ctx, 2), x, h_prev, w_ih, d_in, d_hid)
        return grads[0], dh_next, *grads[1:]


class RNNLayer(Function):
    """One Elman RNN layer: h_t = tanh (or relu) of (x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh).
    Output (T, N, H): h_1 .. h_T. Backward is lesson 12's BPTT exercise."""

    @staticmethod
    def forward(
        ctx: BackwardNode,
        x: Array,
        h0: Array,
        w_ih: Array,
        w_hh: Array,
        b_ih: Array | None,
        b_hh: Array | None,
        nonlinearity: str,
    ) -> Array:
        xp = ctx.xp
        x_part = _project(x, w_ih, _both_biases(b_ih, b_hh))  # every step's input part: one product
        h, hs = h0, []
        for t in range(x.shape[0]):
            a = x_part[t] + h @ w_hh.T
            h = xp.tanh(a) if nonlinearity == "tanh" else xp.maximum(a, 0)
            hs.append(h)
        out = xp.stack(hs)
        ctx.nonlinearity = nonlinearity
        ctx.save_for_backward(x, h0, w_ih, w_hh, out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        x, h0, w_ih, w_hh, out = ctx.saved_tensors
        # The nonlinearity's derivative, from its output: 1 - h^2 for tanh, 1 where h > 0 for relu.
        local = 1 - out * out if ctx.nonlinearity == "tanh" else (out > 0).astype(out.dtype)
        dh_next = xp.zeros_like(h0)
        das = []
        for t in reversed(range(x.shape[0])):
            das.append((grad[t] + dh_next) * local[t])  # the gradient of step t's pre-activation
            dh_next = das[-1] @ w_hh
        da = xp.stack(das[::-1])
        grads = weight_grads(_needs(ctx, 2), x, _previous_states(xp, h0, out), w_ih, da, da)
        return grads[0], dh_next, *grads[1:], None


def _check(
    op: str,
    x: TensorBase,
    states: list[tuple[TensorBase, int]],
    w_ih: TensorBase,
    w_hh: TensorBase,
    gates: int,
    w_hr: TensorBase | None = None,
) -> None:
    """Shapes and dtypes of one layer's input, states (each with its size) and weights."""
    H = w_hh.shape[1] if w_hr is None else w_hr.shape[1]
    P = w_hh.shape[1]  # the size of h: H, or the projection's
    if x.ndim != 3 or x.shape[2] != w_ih.shape[1]:
        raise MiniTorchError(f"{op}: expected input (T, N, {w_ih.shape[1]}), got shape {tuple(x.shape)}")
    if tuple(w_ih.shape[:1]) != (gates * H,) or tuple(w_hh.shape) != (gates * H, P):
        raise MiniTorchError(
            f"{op}: weights of shapes {tuple(w_ih.shape)} and {tuple(w_hh.shape)} do not fit {gates} gates of size {H}"
            + ("" if w_hr is None else f" with a projection to {P} (weight_hr {tuple(w_hr.shape)})")
        )
    for state, size in states:
        if tuple(state.shape) != (x.shape[1], size):
            raise MiniTorchError(f"{op}: expected a state of shape {(x.shape[1], size)}, got {tuple(state.shape)}")
    tensors = (x, w_ih, w_hh, *(s for s, _ in states), *([] if w_hr is None else [w_hr]))
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise MiniTorchError(f"{op}: input, states and weights must share one dtype, got {sorted(map(str, dtypes))}")


def lstm_layer(
    x: T,
    h0: T,
    c0: T,
    w_ih: T,
    w_hh: T,
    b_ih: T | None,
    b_hh: T | None,
    w_hr: T | None = None,
) -> tuple[T, T, T]:
    """One LSTM layer over x (T, N, I) from (h0, c0): returns (all h (T, N, P), h_T, c_T).

    ``w_hr`` (P, H), PyTorch's ``weight_hr``, projects each h to size P (``LSTM(proj_size=P)``).
    """
    H = w_ih.shape[0] // 4
    _check("lstm", x, [(h0, w_hh.shape[1]), (c0, H)], w_ih, w_hh, 4, w_hr)
    packed = LSTMLayer.apply(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
    T, N, P = x.shape[0], x.shape[1], w_hh.shape[1]
    hs = reshape(getitem(packed, slice(0, T * N * P)), (T, N, P))
    c_T = reshape(getitem(packed, slice(T * N * P, None)), (N, H))
    return hs, getitem(hs, T - 1), c_T


def gru_layer(
    x: T, h0: T, w_ih: T, w_hh: T, b_ih: T | None, b_hh: T | None
) -> tuple[T, T]:
    """One GRU layer over x (T, N, I) from h0: returns (all h (T, N, H), h_T)."""
    _check("gru", x, [(h0, w_hh.shape[1])], w_ih, w_hh, 3)
    out = GRULayer.apply(x, h0, w_ih, w_hh, b_ih, b_hh)
    return out, getitem(out, x.shape[0] - 1)


def rnn_layer(
    x: T,
    h0: T,
    w_ih: T,
    w_hh: T,
    b_ih: T | None,
    b_hh: T | None,
    nonlinearity: str = "tanh",
) -> tuple[T, T]:
    """One tanh/relu RNN layer over x (T, N, I) from h0: returns (all h (T, N, H), h_T)."""
    if nonlinearity not in ("tanh", "relu"):
        raise MiniTorchError(f"rnn: unknown nonlinearity {nonlinearity!r} (use 'tanh' or 'relu')")
    _check("rnn", x, [(h0, w_hh.shape[1])], w_ih, w_hh, 1)
    out = RNNLayer.apply(x, h0, w_ih, w_hh, b_ih, b_hh, nonlinearity)
    return out, getitem(out, x.shape[0] - 1)
