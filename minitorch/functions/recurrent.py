"""Recurrent layers as whole-sequence ops: one node runs every time step, forward and back.

An RNN written with small ops records about a dozen nodes per time step; at 64 steps
that is 800 nodes whose Python overhead dominates. These ops instead:

1. project the inputs of ALL time steps with one matrix product (x @ W_ih^T + b_ih),
2. loop over time doing only what must be sequential: h @ W_hh^T and the gate
   arithmetic, in place on preallocated arrays,
3. in backward, walk time in reverse (backpropagation through time) collecting the
   gradient of each step's gate pre-activations, then get the weight gradients with one
   matrix product each over all steps.

(The LSTM folds 1 into 2: each step's one product [W_hh | W_ih | b] @ [h; x_t; 1] costs
less than the all-steps projection plus the pass adding it to each step; see LSTMLayer.)

Shapes: x (T, N, I), h0 / c0 (N, H), W_ih (G*H, I), W_hh (G*H, H), biases (G*H,), with
PyTorch's gate order (LSTM: i, f, g, o; GRU: r, z, n). Each op returns one array (a
MiniTorch Function has one output): the hidden states of every step, and for the LSTM
the final cell state after them, both flattened into one 1-D array (``lstm_layer`` cuts
it apart). An LSTM with a projection (``proj_size``, PyTorch's ``weight_hr``) has hidden
states of size P = W_hr.shape[0]: h_t = W_hr (o * tanh(c_t)), and W_hh is (4*H, P).
A bidirectional layer is two of these ops, the second run on the time-flipped sequence
(``nn/recurrent.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError
from minitorch.functions.indexing import getitem
from minitorch.functions.linalg import matmul_narrow
from minitorch.functions.shape import reshape
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


def _input_projection(x: Array, w_ih: Array, bias: Array | None) -> Array:
    """x @ W_ih^T + bias for all time steps at once: (T, N, I) -> (T, N, G*H)."""
    T, N, I = x.shape
    # Sizes spelled out, not -1: an empty batch (N = 0) reshapes too, as in PyTorch.
    out = x.reshape(T * N, I) @ w_ih.T
    if bias is not None:
        out += bias
    return out.reshape(T, N, w_ih.shape[0])


def _weight_grads(
    xp: Any, needs: tuple[bool, ...], dz: Array, x: Array, w_ih: Array, h_prev: Array, dz_h: Array) -> Gradients:
    """Gradients of x, W_ih, W_hh, b_ih, b_hh from the pre-activation gradients of all steps.

    ``dz`` (T, N, G*H) is the gradient of the input projection, ``dz_h`` that of the hidden
    projection h_{t-1} @ W_hh^T + b_hh (the same array except in the GRU). ``needs``: whether
    x, W_ih, W_hh, b_ih and b_hh need a gradient.
    """
    T, N, GH = dz.shape
    need_x, need_wih, need_whh, need_bih, need_bhh = needs
    dz2, dzh2 = dz.reshape(T * N, GH), dz_h.reshape(T * N, GH)
    grad_x = (dz2 @ w_ih).reshape(x.shape) if need_x else None
    x2, h2 = x.reshape(T * N, x.shape[-1]), h_prev.reshape(T * N, h_prev.shape[-1])
    # (Two products run as fast as one on [x | h], without its copies in and out.)
    grad_wih = dz2.T @ x2 if need_wih else None
    grad_whh = dzh2.T @ h2 if need_whh else None
    grad_bih = dz2.sum(axis=0) if need_bih else None
    if need_bhh:  # the same sum as b_ih's when both projections share dz (a copy: two leaves)
        grad_bhh = grad_bih.copy() if grad_bih is not None and dz_h is dz else dzh2.sum(axis=0)
    else:
        grad_bhh = None
    return grad_x, grad_wih, grad_whh, grad_bih, grad_bhh


def _needs(ctx: BackwardNode, first_weight: int) -> tuple[bool, ...]:
    """needs_input_grad of x and of W_ih, W_hh, b_ih, b_hh (which start at ``first_weight``)."""
    n = ctx.needs_input_grad
    return (n[0], *n[first_weight : first_weight + 4])


def _gate_rows(xp: Any, w: Array) -> Array:
    """An LSTM weight's (or bias's) gate blocks from PyTorch's i, f, g, o to o, i, f, g, the
    sigmoid gates' rows halved: sigmoid(z) = (1 + tanh(z / 2)) / 2, so one tanh then serves
    all four gates. (Halving is exact in floating point.)"""
    H = w.shape[0] // 4
    out = xp.empty_like(w)
    xp.multiply(w[3 * H :], 0.5, out=out[:H])
    xp.multiply(w[: 2 * H], 0.5, out=out[H : 3 * H])
    out[3 * H :] = w[2 * H : 3 * H]
    return out


def _stacked_inputs(
    xp: Any, x: Array, h0: Array, w_ih: Array, w_hh: Array, b_ih: Array | None, b_hh: Array | None
) -> tuple[Array, Array]:
    """The LSTM's per-step product, one matrix for both projections and the bias.

    Returns W = [W_hh | W_ih | b] (4H, K), gates in _gate_rows' order, and ``steps``
    (T + 1, K, N) with steps[t] = [h_{t-1}^T; x_t^T; 1]: W @ steps[t] is step t's whole
    pre-activation. The h rows of steps[0] hold h0; the forward writes h_t into steps[t + 1]
    (of steps[T] only those rows are used).
    One product per step of K = P + I + 1 costs less than a separate input projection for all
    steps plus the pass that adds it to each step's hidden product (and the bias add).
    """
    T, N, I = x.shape
    P = w_hh.shape[1]
    bias = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
    blocks = [w_hh, w_ih] if bias is None else [w_hh, w_ih, bias[:, None]]
    w_all = _gate_rows(xp, xp.concatenate(blocks, axis=1))
    steps = xp.empty((T + 1, w_all.shape[1], N), dtype=x.dtype)
    steps[0, :P] = h0.T
    steps[:T, P : P + I] = x.transpose(0, 2, 1)
    if bias is not None:
        steps[:, P + I] = 1
    return w_all, steps


# Steps per chunk of the LSTM backward: a chunk's local derivatives and dz (1 MB each at
# 4H = 1024, N = 32) stay in cache from their computation until they are read, where all
# steps at once make ten passes over memory (about 8 MB each) and one more to copy dz.
_CHUNK = 8


def _local_derivatives(xp: Any, a: Array, tanh_c: Array, c_prev: Array, coef: Array, dc_dh: Array) -> None:
    """The LSTM gates' local derivatives for a chunk of steps, written into ``coef`` (the gate
    order of ``a``: o, i, f, g) and ``dc_dh`` (how c's gradient takes h's: o * (1 - tanh(c)^2))."""
    H = tanh_c.shape[1]
    xp.multiply(tanh_c, tanh_c, out=dc_dh)
    xp.subtract(1, dc_dh, out=dc_dh)
    dc_dh *= a[:, :H]
    sigmoids = coef[:, : 3 * H]  # a (1 - a) for the sigmoids ...
    xp.subtract(1, a[:, : 3 * H], out=sigmoids)
    sigmoids *= a[:, : 3 * H]
    coef_g = coef[:, 3 * H :]
    xp.multiply(a[:, 3 * H :], a[:, 3 * H :], out=coef_g)  # ... and 1 - g^2 for tanh
    xp.subtract(1, coef_g, out=coef_g)
    coef[:, :H] *= tanh_c  # o scales tanh(c)
    coef[:, H : 2 * H] *= a[:, 3 * H :]  # i scales g
    coef[:, 2 * H : 3 * H] *= c_prev  # f scales the previous c
    coef[:, 3 * H :] *= a[:, H : 2 * H]  # g is scaled by i


class LSTMLayer(Function):
    """One LSTM layer over a whole sequence.

    Per step: i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (x W_ih^T + b_ih + h W_hh^T + b_hh),
    c' = f * c + i * g,  h' = o * tanh(c')  (times W_hr^T when there is a projection).
    Output, flat: h_1 .. h_T (T, N, P), then c_T (N, H); P = H without a projection.

    Inside, every per-step array is feature-major, (features, N): the step's product is then
    [W_hh | W_ih | b] (4H, P + I + 1) @ [h^T; x_t^T; 1] (``_stacked_inputs``), the layout
    OpenBLAS runs fastest for 32 columns (in row blocks: ``linalg.matmul_narrow``), written
    straight into the step's gates, and each gate is one contiguous block of rows. The gates
    are kept in the order o, i, f, g (PyTorch's rolled by one gate), so that the three sigmoids
    are one block in forward, and in backward the three gates scaled by dc (i, f, g) are one
    block -- each one NumPy call instead of two.

    Backward walks the steps in chunks of a few (``_CHUNK``): it computes a chunk's local
    derivatives (``_local_derivatives``) just before the reverse loop reads them, and copies
    the chunk's dz, (steps, 4, H, N) as the loop writes it, into the (4H, T*N) matrix of the
    weight gradients right after -- both while they are in cache.
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
        T, N, _ = x.shape
        H, P = w_ih.shape[0] // 4, w_hh.shape[1]
        w_all, steps = _stacked_inputs(xp, x, h0, w_ih, w_hh, b_ih, b_hh)
        gates = xp.empty((T, 4 * H, N), dtype=x.dtype)
        cs = xp.empty((T + 1, H, N), dtype=x.dtype)
        cs[0] = c0.T
        tanh_c = xp.empty((T, H, N), dtype=x.dtype)
        # o * tanh(c) before the projection (what W_hr's gradient needs); without one it is h itself
        unprojected = None if w_hr is None else xp.empty((T, H, N), dtype=x.dtype)
        ig = xp.empty((H, N), dtype=x.dtype)  # reused by every step
        for t in range(T):
            a = matmul_narrow(xp, w_all, steps[t], gates[t])  # the step's whole pre-activation, bias included
            xp.tanh(a, out=a)
            sigmoids = a[: 3 * H]
            sigmoids *= 0.5
            sigmoids += 0.5
            o, i, f, g = a[:H], a[H : 2 * H], a[2 * H : 3 * H], a[3 * H :]
            c = cs[t + 1]
            xp.multiply(f, cs[t], out=c)
            c += xp.multiply(i, g, out=ig)
            xp.tanh(c, out=tanh_c[t])
            h = steps[t + 1, :P]  # h_t^T, where the next step's product reads it
            if w_hr is None:
                xp.multiply(o, tanh_c[t], out=h)
            else:
                xp.matmul(w_hr, xp.multiply(o, tanh_c[t], out=unprojected[t]), out=h)
        # batch-major, (T + 1, N, P): the output and the weight gradients' layout
        hs = xp.ascontiguousarray(steps[:, :P].transpose(0, 2, 1))
        if w_hr is None:
            unprojected = hs[1:]
        else:
            unprojected = xp.ascontiguousarray(unprojected.transpose(0, 2, 1))
        ctx.save_for_backward(x, w_ih, w_hh, gates, hs, cs, tanh_c, w_hr, unprojected)
        return xp.concatenate([hs[1:].reshape(-1), cs[T].T.reshape(-1)])

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, w_ih, w_hh, a, hs, cs, tanh_c, w_hr, unprojected = ctx.saved_tensors
        T, H, N = tanh_c.shape
        P = hs.shape[2]
        xp = ctx.xp
        grad_c = grad[T * N * P :].reshape(N, H)
        grad = grad[: T * N * P].reshape(T, N, P)
        f = a[:, 2 * H : 3 * H]
        # The gradient of the pre-activations, in PyTorch's gate order, as a (4H, T*N) matrix
        # (column t*N + n: step t, sample n): one product then gives each weight's gradient.
        dz_rows = xp.empty((4 * H, T * N), dtype=grad.dtype)
        dh_all = xp.empty((T, N, P), dtype=grad.dtype) if w_hr is not None else None
        w_hh_t = xp.ascontiguousarray(w_hh.T)  # (P, 4H) in C order: the fastest product
        # Per-step arrays made once and written with out=: each step's work stays in cache.
        dh_next = xp.zeros((P, N), dtype=grad.dtype)
        # the gradient of c_T, from the packed output: a copy, never a view (for N = 1 or H = 1 the
        # transpose is already contiguous), as the loop writes into it
        dc_next = grad_c.T.copy()
        dh_sum, dc = xp.empty((P, N), dtype=grad.dtype), xp.empty((H, N), dtype=grad.dtype)
        dh_u = xp.empty((H, N), dtype=grad.dtype) if w_hr is not None else None
        # ... and per-chunk arrays: the local derivatives and dz of _CHUNK steps, dz[k] step k's (4, H, N)
        coef = xp.empty((_CHUNK, 4 * H, N), dtype=grad.dtype)
        dc_dh = xp.empty((_CHUNK, H, N), dtype=grad.dtype)
        dz = xp.empty((_CHUNK, 4, H, N), dtype=grad.dtype)
        for t0 in reversed(range(0, T, _CHUNK)):  # the chunks of steps t0 .. t0 + n - 1, the last first
            n = min(_CHUNK, T - t0)
            chunk = slice(t0, t0 + n)
            _local_derivatives(xp, a[chunk], tanh_c[chunk], cs[chunk], coef[:n], dc_dh[:n])
            for k in reversed(range(n)):
                t = t0 + k
                dh = xp.add(grad[t].T, dh_next, out=dh_sum)
                if dh_all is not None:  # back through the projection: h = u @ W_hr^T
                    dh_all[t] = dh.T
                    dh = xp.matmul(w_hr.T, dh, out=dh_u)
                # dc = dh * o * (1 - tanh(c)^2) + dc_next, then dz_o = dh * coef_o, dz_ifg = dc * coef_ifg
                xp.multiply(dh, dc_dh[k], out=dc)
                dc += dc_next
                xp.multiply(dh, coef[k, :H], out=dz[k, 3])
                xp.multiply(dc, coef[k, H:].reshape(3, H, N), out=dz[k, :3])
                xp.multiply(dc, f[t], out=dc_next)
                matmul_narrow(xp, w_hh_t, dz[k].reshape(4 * H, N), dh_next)  # (read only at the next step's start)
            # The chunk's dz, still in cache, into its columns of dz_rows: one transposing copy.
            # (Copied per step, 4H rows of N numbers T*N apart, it costs more than twice as much.)
            xp.copyto(dz_rows.reshape(4, H, T, N)[:, :, chunk], dz[:n].transpose(1, 2, 0, 3))
        dz_t = dz_rows.T.reshape(T, N, 4 * H)  # a view, as _weight_grads takes it
        grads = _weight_grads(ctx.xp, _needs(ctx, 3), dz_t, x, w_ih, hs[:-1], dz_t)
        grad_whr = None
        if dh_all is not None and ctx.needs_input_grad[7]:
            grad_whr = dh_all.reshape(T * N, P).T @ unprojected.reshape(T * N, H)
        return grads[0], xp.ascontiguousarray(dh_next.T), xp.ascontiguousarray(dc_next.T), *grads[1:], grad_whr


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
        T, N, _ = x.shape
        H = w_hh.shape[1]
        xg = _input_projection(x, w_ih, b_ih)
        hs = xp.empty((T + 1, N, H), dtype=x.dtype)
        hs[0] = h0
        rz = xp.empty((T, N, 2 * H), dtype=x.dtype)
        n = xp.empty((T, N, H), dtype=x.dtype)
        hn = xp.empty((T, N, H), dtype=x.dtype)  # W_hn h + b_hn, needed for r's gradient
        w_hh_t = w_hh.T
        for t in range(T):
            hg = hs[t] @ w_hh_t
            if b_hh is not None:
                hg += b_hh
            r_z = rz[t]
            xp.add(xg[t, :, : 2 * H], hg[:, : 2 * H], out=r_z)
            xp.tanh(r_z * 0.5, out=r_z)  # sigmoid(v) = (1 + tanh(v / 2)) / 2
            r_z *= 0.5
            r_z += 0.5
            hn[t] = hg[:, 2 * H :]
            nt = n[t]
            xp.multiply(r_z[:, :H], hn[t], out=nt)
            nt += xg[t, :, 2 * H :]
            xp.tanh(nt, out=nt)
            # h' = n + z * (h - n)
            h_new = hs[t + 1]
            xp.subtract(hs[t], nt, out=h_new)
            h_new *= r_z[:, H:]
            h_new += nt
        ctx.save_for_backward(x, w_ih, w_hh, hs, rz, n, hn)
        return hs[1:].copy()

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        x, w_ih, w_hh, hs, rz, n, hn = ctx.saved_tensors
        T, N, H = n.shape
        d_in = xp.empty((T, N, 3 * H), dtype=grad.dtype)  # grads of the input projection
        d_hid = xp.empty((T, N, 3 * H), dtype=grad.dtype)  # ... and of the hidden projection
        dh_next = xp.zeros((N, H), dtype=grad.dtype)
        for t in range(T - 1, -1, -1):
            r, z, nt = rz[t, :, :H], rz[t, :, H:], n[t]
            dh = grad[t] + dh_next
            dn = dh * (1 - z) * (1 - nt * nt)  # through tanh to n's pre-activation
            dz_ = dh * (hs[t] - nt) * z * (1 - z)
            dr = dn * hn[t] * r * (1 - r)
            d_in[t, :, :H], d_in[t, :, H : 2 * H], d_in[t, :, 2 * H :] = dr, dz_, dn
            d_hid[t, :, : 2 * H] = d_in[t, :, : 2 * H]
            xp.multiply(dn, r, out=d_hid[t, :, 2 * H :])
            dh_next = dh * z + d_hid[t] @ w_hh
        grads = _weight_grads(ctx.xp, _needs(ctx, 2), d_in, x, w_ih, hs[:-1], d_hid)
        return grads[0], dh_next, *grads[1:]


class RNNLayer(Function):
    """One Elman RNN layer: h' = tanh (or relu) of (x W_ih^T + b_ih + h W_hh^T + b_hh). Output h_1 .. h_T."""

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
        T, N, _ = x.shape
        H = w_hh.shape[1]
        bias = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
        hs = _input_projection(x, w_ih, bias)  # becomes h_1 .. h_T in place
        w_hh_t = w_hh.T
        h = h0
        for t in range(T):
            hs[t] += h @ w_hh_t
            if nonlinearity == "tanh":
                xp.tanh(hs[t], out=hs[t])
            else:
                xp.maximum(hs[t], 0, out=hs[t])
            h = hs[t]
        ctx.nonlinearity = nonlinearity
        ctx.save_for_backward(x, h0, w_ih, w_hh, hs)
        ctx.H = H
        return hs.copy()

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        x, h0, w_ih, w_hh, hs = ctx.saved_tensors
        local = 1 - hs * hs if ctx.nonlinearity == "tanh" else (hs > 0).astype(hs.dtype)
        dz = xp.empty_like(hs)
        dh_next = xp.zeros_like(h0)
        for t in range(hs.shape[0] - 1, -1, -1):
            xp.multiply(grad[t] + dh_next, local[t], out=dz[t])
            dh_next = dz[t] @ w_hh
        h_prev = xp.concatenate([h0[None], hs[:-1]])
        grads = _weight_grads(ctx.xp, _needs(ctx, 2), dz, x, w_ih, h_prev, dz)
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
    x: TensorBase,
    h0: TensorBase,
    c0: TensorBase,
    w_ih: TensorBase,
    w_hh: TensorBase,
    b_ih: TensorBase | None,
    b_hh: TensorBase | None,
    w_hr: TensorBase | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
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
    x: TensorBase, h0: TensorBase, w_ih: TensorBase, w_hh: TensorBase, b_ih: TensorBase | None, b_hh: TensorBase | None
) -> tuple[Tensor, Tensor]:
    """One GRU layer over x (T, N, I) from h0: returns (all h (T, N, H), h_T)."""
    _check("gru", x, [(h0, w_hh.shape[1])], w_ih, w_hh, 3)
    out = GRULayer.apply(x, h0, w_ih, w_hh, b_ih, b_hh)
    return out, getitem(out, x.shape[0] - 1)


def rnn_layer(
    x: TensorBase,
    h0: TensorBase,
    w_ih: TensorBase,
    w_hh: TensorBase,
    b_ih: TensorBase | None,
    b_hh: TensorBase | None,
    nonlinearity: str = "tanh",
) -> tuple[Tensor, Tensor]:
    """One tanh/relu RNN layer over x (T, N, I) from h0: returns (all h (T, N, H), h_T)."""
    if nonlinearity not in ("tanh", "relu"):
        raise MiniTorchError(f"rnn: unknown nonlinearity {nonlinearity!r} (use 'tanh' or 'relu')")
    _check("rnn", x, [(h0, w_hh.shape[1])], w_ih, w_hh, 1)
    out = RNNLayer.apply(x, h0, w_ih, w_hh, b_ih, b_hh, nonlinearity)
    return out, getitem(out, x.shape[0] - 1)
