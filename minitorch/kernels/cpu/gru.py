"""The GRU layer (``functions/recurrent.py: GRULayer``) with its per-step values kept for backward.

The op as taught saves only its inputs and its output, and its backward computes every step's
gates again (two more matrix products over the whole sequence). This kernel keeps what forward
computed, the gates r and z, n and the hidden part W_hn h + b_hn of every step
(``save_for_kernel``), so backward does only the backward work; and it writes each step's
values in place into arrays made once per call instead of making a dozen temporaries per step.

The contract of ``minitorch/kernels``: forward returns the op's output and saves for backward
what the op saves (its inputs and that output), so ``GRULayer.backward`` also runs on its nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.recurrent import GRULayer, weight_grads
from minitorch.hints import Array, Gradients
from minitorch.kernels.registry import register


def takes(x: Array, *_: Any) -> bool:
    """Float32 and float64 NumPy arrays (float16 runs the op as written)."""
    return type(x) is np.ndarray and x.dtype in (np.float32, np.float64)


def gru_forward_kept(
    ctx: BackwardNode, x: Array, h0: Array, w_ih: Array, w_hh: Array, b_ih: Array | None, b_hh: Array | None
) -> Array:
    """``GRULayer.forward``, each step written in place; r, z, n and W_hn h + b_hn kept for backward."""
    T, N, I = x.shape
    H = w_hh.shape[1]
    xg = (x.reshape(T * N, I) @ w_ih.T).reshape(T, N, 3 * H)  # every step's input part: one product
    if b_ih is not None:
        xg += b_ih
    hs = np.empty((T + 1, N, H), dtype=x.dtype)
    hs[0] = h0
    rz = np.empty((T, N, 2 * H), dtype=x.dtype)
    n = np.empty((T, N, H), dtype=x.dtype)
    hn = np.empty((T, N, H), dtype=x.dtype)  # W_hn h + b_hn, needed for r's gradient
    w_hh_t = w_hh.T
    for t in range(T):
        hg = hs[t] @ w_hh_t
        if b_hh is not None:
            hg += b_hh
        r_z = rz[t]
        np.add(xg[t, :, : 2 * H], hg[:, : 2 * H], out=r_z)
        np.tanh(r_z * 0.5, out=r_z)  # sigmoid(v) = (1 + tanh(v / 2)) / 2
        r_z *= 0.5
        r_z += 0.5
        hn[t] = hg[:, 2 * H :]
        nt = n[t]
        np.multiply(r_z[:, :H], hn[t], out=nt)
        nt += xg[t, :, 2 * H :]
        np.tanh(nt, out=nt)
        # h' = n + z * (h - n)
        h_new = hs[t + 1]
        np.subtract(hs[t], nt, out=h_new)
        h_new *= r_z[:, H:]
        h_new += nt
    out = hs[1:].copy()
    ctx.save_for_backward(x, h0, w_ih, w_hh, b_ih, b_hh, out)  # what GRULayer.forward saves
    ctx.save_for_kernel(hs, rz, n, hn)
    return out


def gru_backward_kept(ctx: BackwardNode, grad: Array) -> Gradients:
    """``GRULayer.backward`` from the kept gates, each step's gradients written in place."""
    x, _, w_ih, w_hh, _, _, _ = ctx.saved_tensors
    hs, rz, n, hn = ctx.kernel_saved
    T, N, H = n.shape
    d_in = np.empty((T, N, 3 * H), dtype=grad.dtype)  # grads of the input projection
    d_hid = np.empty((T, N, 3 * H), dtype=grad.dtype)  # ... and of the hidden projection
    dh_next = np.zeros((N, H), dtype=grad.dtype)
    for t in range(T - 1, -1, -1):
        r, z, nt = rz[t, :, :H], rz[t, :, H:], n[t]
        dh = grad[t] + dh_next
        dn = dh * (1 - z) * (1 - nt * nt)  # through tanh to n's pre-activation
        dz = dh * (hs[t] - nt) * z * (1 - z)
        dr = dn * hn[t] * r * (1 - r)
        d_in[t, :, :H], d_in[t, :, H : 2 * H], d_in[t, :, 2 * H :] = dr, dz, dn
        d_hid[t, :, : 2 * H] = d_in[t, :, : 2 * H]
        np.multiply(dn, r, out=d_hid[t, :, 2 * H :])
        dh_next = dh * z + d_hid[t] @ w_hh
    needs = ctx.needs_input_grad
    grads = weight_grads((needs[0], *needs[2:6]), x, hs[:-1], w_ih, d_in, d_hid)
    return grads[0], dh_next, *grads[1:]


KEPT_GATES = register(GRULayer, device="cpu", applies=takes, forward=gru_forward_kept, backward=gru_backward_kept)
