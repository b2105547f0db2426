"""Second derivatives of the shape ops (shape.py), the rearranging ops (rearranging.py) and
the masks (masking.py), against finite differences (gradgradcheck) and PyTorch's
(``second_order.py``); third derivatives against PyTorch's on one case of each.

A shape op is linear: its second derivative with respect to the input is 0, and what a
gradient of a gradient checks is the backward itself as a function of the output weights
(``grad_outputs``). Each case multiplies by the input once more (``* t``) so that the
derivatives with respect to the input are not all 0.
"""

import pytest

pytest.importorskip("torch")

from second_order import check  # noqa: E402  (PyTorch first)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda lib, t: t.reshape(6, 4) * t.reshape(6, 4), id="reshape"),
        pytest.param(lambda lib, t: t.view(-1) * t.reshape(-1), id="view"),
        pytest.param(lambda lib, t: t.permute(2, 0, 1) * t.permute(2, 0, 1), id="permute"),
        pytest.param(lambda lib, t: t.transpose(0, 2) ** 2, id="transpose"),
        pytest.param(lambda lib, t: t.unsqueeze(1) * t[:, None], id="unsqueeze"),
        pytest.param(lambda lib, t: t.flatten(1) ** 2, id="flatten"),
        pytest.param(lambda lib, t: t[:, :1].squeeze(1) ** 3, id="squeeze"),
        pytest.param(lambda lib, t: t[:, :1].expand(2, 3, 4) * t, id="expand"),
        pytest.param(lambda lib, t: lib.broadcast_to(t[0, 0], (3, 4)) * t[1], id="broadcast_to"),
        pytest.param(lambda lib, t: t.movedim(0, -1) ** 2, id="movedim"),
        pytest.param(lambda lib, t: t.narrow(2, 1, 2) * t.select(1, 0)[:, None, 1:3], id="narrow-select"),
    ],
)
def test_views_and_reshapes(rng, fn):
    check(fn, rng.standard_normal((2, 3, 4)), order=3)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_and_stack(rng, dim):
    shapes = {0: [(1, 3), (2, 3)], 1: [(3, 1), (3, 2)], -1: [(3, 1), (3, 2)]}[dim]
    a, b = (rng.standard_normal(s) for s in shapes)
    check(lambda lib, x, y: lib.cat([x * y.sum(), y, x], dim=dim) ** 2, a, b, order=3)
    c, d = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    check(lambda lib, x, y: lib.stack([x, x * y, y], dim) ** 2, c, d)


def test_cat_skips_empty_1d_tensors_and_joins_the_same_tensor_twice(rng):
    x = rng.standard_normal((2, 3))
    check(lambda lib, t: lib.cat([t, lib.zeros(0, dtype=lib.float64), t * t]) ** 2, x)
    check(lambda lib, t: lib.hstack([t, t.exp()]) * lib.vstack([t, t]).sum(0).repeat(2), x)
    check(lambda lib, t: sum(r * r for r in t.unbind(1)), x)


def test_repeat_tile_repeat_interleave(rng):
    x = rng.standard_normal((2, 3))
    check(lambda lib, t: t.repeat(2, 1, 3) ** 2, x, order=3)
    check(lambda lib, t: lib.tile(t, (2,)) * lib.tile(t, (2,)), x)
    check(lambda lib, t: t.repeat_interleave(2, dim=1) ** 2, x, order=3)
    check(lambda lib, t: t.repeat_interleave(lib.tensor([1, 0, 3]), dim=1) ** 2, x)
    check(lambda lib, t: t.repeat_interleave(3) ** 3, x)


@pytest.mark.parametrize("k", [0, 1, -1])
def test_diag_diagonal_trace(rng, k):
    v, m, batch = rng.standard_normal(3), rng.standard_normal((3, 4)), rng.standard_normal((2, 3, 4))
    check(lambda lib, t: lib.diag(t, k) ** 2, v, order=3)
    check(lambda lib, t: lib.diag(t, k) ** 2, m, order=3)
    check(lambda lib, t: lib.diagonal(t, k, 1, 2) ** 2, batch)
    check(lambda lib, t: lib.diagonal(t, k, -1, 0) ** 2, batch)
    check(lambda lib, t: lib.trace(t * t), m)


def test_outer_and_dot(rng):
    a, b = rng.standard_normal(3), rng.standard_normal(4)
    check(lambda lib, x, y: lib.outer(x, y) ** 2, a, b, order=3)
    check(lambda lib, x: lib.dot(x, x * x), a, order=3)


# ---------------------------------------------------------------------- masks
def test_masked_fill(rng):
    mask = rng.random((3, 1)) < 0.5
    x = rng.standard_normal((1, 4))
    check(lambda lib, t: t.masked_fill(lib.tensor(mask), 2.0) ** 2, x, order=3)  # x and mask broadcast
    # a 0-d value that needs a gradient gets the filled positions' gradients
    check(lambda lib, t, v: (t * t).masked_fill(lib.tensor(mask), v * v) * t, x, rng.standard_normal(()))


@pytest.mark.parametrize("k", [0, 1, -2])
def test_tril_triu(rng, k):
    x = rng.standard_normal((2, 3, 4))
    check(lambda lib, t: lib.tril(t, k) ** 2, x, order=3)
    check(lambda lib, t: lib.triu(t * t, k) * t, x)
