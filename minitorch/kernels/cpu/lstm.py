"""The LSTM layer (``functions/recurrent.py: LSTMLayer``) rearranged for NumPy on the CPU.

The op as taught projects the inputs of all steps with one product, then per step adds
h W_hh^T and evaluates the gates, batch-major, in PyTorch's gate order, making a new array
for every intermediate value; its backward recomputes the gates. Each choice below makes
the same arithmetic cheaper on a CPU:

- **Feature-major per-step arrays** (features, N): the step's product is then
  [W_hh | W_ih | b] (4H, P + I + 1) @ [h^T; x_t^T; 1] (``stacked_inputs``), a tall matrix times
  a narrow one, the layout OpenBLAS runs fastest for a batch of 32 columns (in row blocks:
  ``small_products.matmul_narrow``), written straight into the step's gates; and each gate is
  one contiguous block of rows.
- **One product per step, bias included**: a product with K = P + I + 1 costs less than the
  all-steps input projection plus the pass that adds its slice to each step's hidden product.
- **Gates in the order o, i, f, g, sigmoid rows halved** (``gate_rows``): sigmoid(z) =
  (1 + tanh(z / 2)) / 2, so one tanh call serves all four gates and the three sigmoids are one
  block; in backward the three gates scaled by dc (i, f, g) are one block too.
- **Everything written in place** into arrays made once per call (``out=``): a step's work
  stays in the cache instead of allocating a dozen temporaries.
- **Backward keeps what forward computed** (``save_for_kernel``: the gates, the cell states
  and their tanh) instead of recomputing them, and walks the steps in chunks of ``CHUNK``: a
  chunk's local derivatives are computed just before the reverse loop reads them and its dz is
  copied into the weight gradients' matrix right after, both while they are in cache, where
  whole-sequence passes would each go out to memory and back.

The contract of ``minitorch/kernels``: forward returns the op's output and saves for backward
what the op saves (its inputs and that output), so ``LSTMLayer.backward`` also runs on its nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.recurrent import LSTMLayer
from minitorch.hints import Array, Gradients
from minitorch.kernels.cpu.small_products import matmul_narrow
from minitorch.kernels.registry import register

# Steps per chunk of the backward: a chunk's local derivatives and dz (1 MB each at 4H = 1024,
# N = 32) stay in cache from their computation until they are read.
CHUNK = 8


def takes(x: Array, *_: Any) -> bool:
    """Float32 and float64 NumPy arrays (float16 runs the op as written: NumPy has no half BLAS)."""
    return type(x) is np.ndarray and x.dtype in (np.float32, np.float64)


def gate_rows(w: Array) -> Array:
    """An LSTM weight's (or bias's) gate blocks from PyTorch's i, f, g, o to o, i, f, g, the
    sigmoid gates' rows halved (sigmoid(z) = (1 + tanh(z / 2)) / 2; halving is exact)."""
    H = w.shape[0] // 4
    out = np.empty_like(w)
    np.multiply(w[3 * H :], 0.5, out=out[:H])
    np.multiply(w[: 2 * H], 0.5, out=out[H : 3 * H])
    out[3 * H :] = w[2 * H : 3 * H]
    return out


def stacked_inputs(
    x: Array, h0: Array, w_ih: Array, w_hh: Array, b_ih: Array | None, b_hh: Array | None
) -> tuple[Array, Array]:
    """The per-step product, one matrix for both projections and the bias.

    Returns W = [W_hh | W_ih | b] (4H, K), gates in ``gate_rows``' order, and ``steps``
    (T + 1, K, N) with steps[t] = [h_{t-1}^T; x_t^T; 1]: W @ steps[t] is step t's whole
    pre-activation. The h rows of steps[0] hold h0; the forward writes h_t into steps[t + 1]
    (of steps[T] only those rows are used).
    """
    T, N, I = x.shape
    P = w_hh.shape[1]
    bias = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
    blocks = [w_hh, w_ih] if bias is None else [w_hh, w_ih, bias[:, None]]
    w_all = gate_rows(np.concatenate(blocks, axis=1))
    steps = np.empty((T + 1, w_all.shape[1], N), dtype=x.dtype)
    steps[0, :P] = h0.T
    steps[:T, P : P + I] = x.transpose(0, 2, 1)
    if bias is not None:
        steps[:, P + I] = 1
    return w_all, steps


def lstm_forward_feature_major(
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
    """``LSTMLayer.forward``, feature-major with one stacked product per step (see the module doc)."""
    T, N, _ = x.shape
    H, P = w_ih.shape[0] // 4, w_hh.shape[1]
    w_all, steps = stacked_inputs(x, h0, w_ih, w_hh, b_ih, b_hh)
    gates = np.empty((T, 4 * H, N), dtype=x.dtype)
    cs = np.empty((T + 1, H, N), dtype=x.dtype)
    cs[0] = c0.T
    tanh_c = np.empty((T, H, N), dtype=x.dtype)
    # o * tanh(c) before the projection (what W_hr's gradient needs); without one it is h itself
    u = None if w_hr is None else np.empty((T, H, N), dtype=x.dtype)
    ig = np.empty((H, N), dtype=x.dtype)  # reused by every step
    for t in range(T):
        a = matmul_narrow(np, w_all, steps[t], gates[t])  # the step's whole pre-activation, bias included
        np.tanh(a, out=a)
        sigmoids = a[: 3 * H]
        sigmoids *= 0.5
        sigmoids += 0.5
        o, i, f, g = a[:H], a[H : 2 * H], a[2 * H : 3 * H], a[3 * H :]
        c = cs[t + 1]
        np.multiply(f, cs[t], out=c)
        c += np.multiply(i, g, out=ig)
        np.tanh(c, out=tanh_c[t])
        h = steps[t + 1, :P]  # h_t^T, where the next step's product reads it
        if w_hr is None or u is None:  # (u is None exactly when w_hr is)
            np.multiply(o, tanh_c[t], out=h)
        else:
            np.matmul(w_hr, np.multiply(o, tanh_c[t], out=u[t]), out=h)
    # batch-major, (T + 1, N, P): the output's and the weight gradients' layout
    hs = np.ascontiguousarray(steps[:, :P].transpose(0, 2, 1))
    unprojected = hs[1:] if u is None else np.ascontiguousarray(u.transpose(0, 2, 1))
    out = np.concatenate([hs[1:].reshape(-1), cs[T].T.reshape(-1)])
    ctx.save_for_backward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, out)  # what LSTMLayer.forward saves
    ctx.save_for_kernel(gates, hs, cs, tanh_c, unprojected)
    return out


def local_derivatives(a: Array, tanh_c: Array, c_prev: Array, coef: Array, dc_dh: Array) -> None:
    """The gates' local derivatives for a chunk of steps, written into ``coef`` (the gate order
    of ``a``: o, i, f, g) and ``dc_dh`` (how c's gradient takes h's: o * (1 - tanh(c)^2))."""
    H = tanh_c.shape[1]
    np.multiply(tanh_c, tanh_c, out=dc_dh)
    np.subtract(1, dc_dh, out=dc_dh)
    dc_dh *= a[:, :H]
    sigmoids = coef[:, : 3 * H]  # a (1 - a) for the sigmoids ...
    np.subtract(1, a[:, : 3 * H], out=sigmoids)
    sigmoids *= a[:, : 3 * H]
    coef_g = coef[:, 3 * H :]
    np.multiply(a[:, 3 * H :], a[:, 3 * H :], out=coef_g)  # ... and 1 - g^2 for tanh
    np.subtract(1, coef_g, out=coef_g)
    coef[:, :H] *= tanh_c  # o scales tanh(c)
    coef[:, H : 2 * H] *= a[:, 3 * H :]  # i scales g
    coef[:, 2 * H : 3 * H] *= c_prev  # f scales the previous c
    coef[:, 3 * H :] *= a[:, H : 2 * H]  # g is scaled by i


def lstm_backward_feature_major(ctx: BackwardNode, grad: Array) -> Gradients:
    """``LSTMLayer.backward`` from what ``lstm_forward_feature_major`` kept, in chunks of steps (see the module doc)."""
    x, _, _, w_ih, w_hh, _, _, w_hr, _ = ctx.saved_tensors
    a, hs, cs, tanh_c, unprojected = ctx.kernel_saved
    T, H, N = tanh_c.shape
    P = hs.shape[2]
    grad_c = grad[T * N * P :].reshape(N, H)
    grad = grad[: T * N * P].reshape(T, N, P)
    f = a[:, 2 * H : 3 * H]
    # The gradient of the pre-activations, in PyTorch's gate order, as a (4H, T*N) matrix
    # (column t*N + n: step t, sample n): one product then gives each weight's gradient.
    dz_rows = np.empty((4 * H, T * N), dtype=grad.dtype)
    dh_all = np.empty((T, N, P), dtype=grad.dtype) if w_hr is not None else None
    w_hh_t = np.ascontiguousarray(w_hh.T)  # (P, 4H) in C order: the fastest product
    # Per-step arrays made once and written with out=: each step's work stays in cache.
    dh_next = np.zeros((P, N), dtype=grad.dtype)
    # the gradient of c_T, from the packed output: a copy, never a view (for N = 1 or H = 1 the
    # transpose is already contiguous), as the loop writes into it
    dc_next = grad_c.T.copy()
    dh_sum, dc = np.empty((P, N), dtype=grad.dtype), np.empty((H, N), dtype=grad.dtype)
    dh_u = np.empty((H, N), dtype=grad.dtype) if w_hr is not None else None
    # ... and per-chunk arrays: the local derivatives and dz of CHUNK steps, dz[k] step k's (4, H, N)
    coef = np.empty((CHUNK, 4 * H, N), dtype=grad.dtype)
    dc_dh = np.empty((CHUNK, H, N), dtype=grad.dtype)
    dz = np.empty((CHUNK, 4, H, N), dtype=grad.dtype)
    for t0 in reversed(range(0, T, CHUNK)):  # the chunks of steps t0 .. t0 + n - 1, the last first
        n = min(CHUNK, T - t0)
        chunk = slice(t0, t0 + n)
        local_derivatives(a[chunk], tanh_c[chunk], cs[chunk], coef[:n], dc_dh[:n])
        for k in reversed(range(n)):
            t = t0 + k
            dh = np.add(grad[t].T, dh_next, out=dh_sum)
            if dh_all is not None:  # back through the projection: h = u @ W_hr^T
                dh_all[t] = dh.T
                dh = np.matmul(w_hr.T, dh, out=dh_u)
            # dc = dh * o * (1 - tanh(c)^2) + dc_next, then dz_o = dh * coef_o, dz_ifg = dc * coef_ifg
            np.multiply(dh, dc_dh[k], out=dc)
            dc += dc_next
            np.multiply(dh, coef[k, :H], out=dz[k, 3])
            np.multiply(dc, coef[k, H:].reshape(3, H, N), out=dz[k, :3])
            np.multiply(dc, f[t], out=dc_next)
            matmul_narrow(np, w_hh_t, dz[k].reshape(4 * H, N), dh_next)  # (read only at the next step's start)
        # The chunk's dz, still in cache, into its columns of dz_rows: one transposing copy
        # (per step it would be 4H short rows of N numbers, T*N apart).
        np.copyto(dz_rows.reshape(4, H, T, N)[:, :, chunk], dz[:n].transpose(1, 2, 0, 3))
    need_x, _, _, need_wih, need_whh, need_bih, need_bhh, need_whr = ctx.needs_input_grad
    grad_x = (dz_rows.T @ w_ih).reshape(x.shape) if need_x else None
    grad_wih = dz_rows @ x.reshape(T * N, x.shape[2]) if need_wih else None
    grad_whh = dz_rows @ hs[:-1].reshape(T * N, P) if need_whh else None
    grad_bih = dz_rows.sum(axis=1) if need_bih else None
    if need_bhh:  # the same sum as b_ih's (a copy: two leaves)
        grad_bhh = grad_bih.copy() if grad_bih is not None else dz_rows.sum(axis=1)
    else:
        grad_bhh = None
    grad_whr = None
    if dh_all is not None and need_whr:
        grad_whr = dh_all.reshape(T * N, P).T @ unprojected.reshape(T * N, H)
    h0_grad, c0_grad = np.ascontiguousarray(dh_next.T), np.ascontiguousarray(dc_next.T)
    return grad_x, h0_grad, c0_grad, grad_wih, grad_whh, grad_bih, grad_bhh, grad_whr


FEATURE_MAJOR = register(
    LSTMLayer, device="cpu", applies=takes, forward=lstm_forward_feature_major, backward=lstm_backward_feature_major
)
