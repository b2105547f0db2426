"""Never silently wrong: a catalogue of bad inputs to ops and factories.

Each case is ``(id, fn, error type, words)``: ``fn(T, F)`` runs with ``T = minitorch`` and
``F = minitorch.nn.functional``, must raise the error type, and its message must contain
every word (the op, the argument, the offending value or shape, the fix where a slip is
likely). Where PyTorch is installed, the same ``fn`` runs with ``T = torch`` and must raise
too, with the matching type (a MiniTorchError is a RuntimeError, as PyTorch's errors are).
``ACCEPTED`` lists inputs PyTorch accepts: MiniTorch must give the same result.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as MF
from minitorch.errors import MiniTorchError, MiniTorchIndexError, MiniTorchValueError

FLOAT_HINT = "//"  # the fix for a float size: integer division


def x34(T):
    return T.arange(12.0).reshape(3, 4)


def img(T):
    return T.ones(1, 2, 5, 5)


def weight(T, kh=3, kw=3):
    return T.ones(3, 2, kh, kw)


# (id, fn(T, F), MiniTorch's error type, words in the message). PyTorch must raise the builtin
# type MiniTorch's derives from (a MiniTorchError is a RuntimeError), or TORCH_TYPE's.
CASES = [
    # ------------------------------------------------------------- sizes must be ints
    (
        "reshape-float",
        lambda T, F: x34(T).reshape(2.5, 2),
        TypeError,
        ["reshape", "'shape'", "float", "pos 0", FLOAT_HINT],
    ),
    ("reshape-float-tuple", lambda T, F: x34(T).reshape((6.0, 2)), TypeError, ["reshape", "float", "pos 0"]),
    ("reshape-bool", lambda T, F: x34(T).reshape((True, 12)), TypeError, ["reshape", "bool", "pos 0"]),
    ("reshape-str", lambda T, F: x34(T).reshape(("a",)), TypeError, ["reshape", "str"]),
    ("reshape-two-inferred", lambda T, F: x34(T).reshape(-1, -1), MiniTorchError, ["reshape", "-1"]),
    ("reshape-minus-two", lambda T, F: x34(T).reshape(-2, 6), MiniTorchError, ["reshape", "(-2, 6)"]),
    ("reshape-wrong-numel", lambda T, F: x34(T).reshape(5, 2), MiniTorchError, ["reshape", "(3, 4)", "(5, 2)"]),
    ("view-float", lambda T, F: x34(T).view((6.0, 2)), TypeError, ["view", "float"]),
    ("view-non-contiguous", lambda T, F: x34(T).t().view(12), MiniTorchError, ["view", "contiguous", ".reshape(...)"]),
    ("unsqueeze-float", lambda T, F: x34(T).unsqueeze(0.5), TypeError, ["unsqueeze", "'dim'", "float", "0.5"]),
    ("unsqueeze-bool", lambda T, F: x34(T).unsqueeze(True), TypeError, ["unsqueeze", "bool"]),
    ("unsqueeze-out-of-range", lambda T, F: x34(T).unsqueeze(3), IndexError, ["unsqueeze", "3", "-3 to 2"]),
    ("expand-float", lambda T, F: x34(T)[:1].expand((2.0, 4)), TypeError, ["expand", "float", "pos 0"]),
    ("expand-incompatible", lambda T, F: x34(T).expand(3, 5), MiniTorchError, ["expand", "5", "4", "(3, 4)"]),
    ("expand-fewer-sizes", lambda T, F: x34(T).expand(4), MiniTorchError, ["expand", "number of sizes"]),
    ("expand-new-leading-minus-one", lambda T, F: x34(T).expand(-1, 3, 4), MiniTorchError, ["expand", "-1", "leading"]),
    ("expand-minus-two", lambda T, F: x34(T)[:1].expand(-2, 4), MiniTorchError, ["expand", "-2"]),
    ("permute-float", lambda T, F: x34(T).permute((1.0, 0)), TypeError, ["permute", "'dims'", "float"]),
    ("permute-duplicate", lambda T, F: x34(T).permute(0, 0), MiniTorchError, ["permute", "(0, 0)"]),
    ("permute-too-few", lambda T, F: x34(T).permute(0), MiniTorchError, ["permute", "(3, 4)"]),
    ("transpose-float", lambda T, F: x34(T).transpose(0.0, 1), TypeError, ["transpose", "'dim0'", "float"]),
    ("transpose-out-of-range", lambda T, F: x34(T).transpose(0, 2), IndexError, ["transpose", "2", "-2 to 1"]),
    ("transpose-0d-out-of-range", lambda T, F: T.tensor(1.0).transpose(0, 1), IndexError, ["transpose", "0-d"]),
    ("squeeze-float", lambda T, F: x34(T).squeeze(0.0), TypeError, ["squeeze", "float"]),
    ("squeeze-out-of-range", lambda T, F: x34(T).squeeze(2), IndexError, ["squeeze", "2"]),
    ("flatten-float", lambda T, F: x34(T).flatten(0.0), TypeError, ["flatten", "'start_dim'", "float"]),
    ("flatten-start-after-end", lambda T, F: x34(T).flatten(1, 0), MiniTorchError, ["flatten", "start_dim"]),
    # ------------------------------------------------------------- reduction dims
    ("sum-float-dim", lambda T, F: x34(T).sum(0.5), TypeError, ["sum", "'dim'", "float"]),
    ("sum-float-in-tuple", lambda T, F: x34(T).sum((0.0,)), TypeError, ["sum", "float"]),
    ("sum-bool-dim", lambda T, F: x34(T).sum(True), TypeError, ["sum", "bool"]),
    ("sum-duplicate-dim", lambda T, F: x34(T).sum((0, 0)), MiniTorchError, ["sum", "multiple times"]),
    ("sum-out-of-range", lambda T, F: x34(T).sum(2), IndexError, ["sum", "2", "-2 to 1"]),
    ("mean-float-dim", lambda T, F: x34(T).mean(1.0), TypeError, ["mean", "float"]),
    ("mean-of-integers", lambda T, F: T.arange(3).mean(), MiniTorchError, ["mean", "floating point", ".float()"]),
    ("max-float-dim", lambda T, F: x34(T).max(1.0), TypeError, ["max", "float"]),
    ("argmax-float-dim", lambda T, F: x34(T).argmax(1.0), TypeError, ["argmax", "float"]),
    ("argmax-empty", lambda T, F: T.zeros(0).argmax(), MiniTorchIndexError, ["argmax", "(0,)"]),
    ("amax-empty", lambda T, F: T.zeros(0).max(), MiniTorchError, ["non-empty", "(0,)"]),
    ("softmax-float-dim", lambda T, F: F.softmax(x34(T), 1.0), TypeError, ["softmax", "float"]),
    ("softmax-out-of-range", lambda T, F: F.softmax(x34(T), 2), IndexError, ["softmax", "2", "-2 to 1"]),
    ("log-softmax-out-of-range", lambda T, F: F.log_softmax(x34(T), -3), IndexError, ["log_softmax", "-3"]),
    # ------------------------------------------------------------- cat and stack
    ("cat-float-dim", lambda T, F: T.cat([x34(T), x34(T)], 0.0), TypeError, ["cat", "'dim'", "float"]),
    ("cat-empty", lambda T, F: T.cat([]), MiniTorchValueError, ["cat", "non-empty"]),
    ("cat-generator", lambda T, F: T.cat(t for t in [x34(T)]), TypeError, ["cat", "generator", "list("]),
    ("cat-single-tensor", lambda T, F: T.cat(x34(T)), TypeError, ["cat", "Tensor", "[a, b]"]),
    ("cat-mismatched-sizes", lambda T, F: T.cat([x34(T), x34(T)[:, :2]]), MiniTorchError, ["cat", "(3, 4)", "(3, 2)"]),
    (
        "cat-mismatched-ndim",
        lambda T, F: T.cat([x34(T), x34(T)[0]]),
        MiniTorchError,
        ["cat", "same number of dimensions"],
    ),
    (
        "cat-zero-dim",
        lambda T, F: T.cat([T.tensor(1.0), T.tensor(2.0)]),
        MiniTorchError,
        ["cat", "zero-dimensional", "stack"],
    ),
    ("cat-non-tensor", lambda T, F: T.cat([x34(T), 1]), TypeError, ["cat", "element 1", "int"]),
    ("cat-out-of-range", lambda T, F: T.cat([x34(T), x34(T)], 2), IndexError, ["cat", "2"]),
    ("stack-empty", lambda T, F: T.stack([]), MiniTorchError, ["stack", "non-empty"]),
    ("stack-generator", lambda T, F: T.stack(t for t in [x34(T)]), TypeError, ["stack", "generator"]),
    ("stack-mismatched", lambda T, F: T.stack([x34(T), x34(T)[:2]]), MiniTorchError, ["stack", "(3, 4)", "(2, 4)"]),
    ("stack-out-of-range", lambda T, F: T.stack([x34(T), x34(T)], 3), IndexError, ["stack", "3"]),
    # ------------------------------------------------------------- factories
    ("zeros-float", lambda T, F: T.zeros(2.5), TypeError, ["zeros", "'size'", "float", FLOAT_HINT]),
    ("zeros-float-in-tuple", lambda T, F: T.zeros((2, 2.0)), TypeError, ["zeros", "float", "pos 1"]),
    ("zeros-negative", lambda T, F: T.zeros(-1), MiniTorchError, ["zeros", "negative", "-1"]),
    ("ones-float", lambda T, F: T.ones(2, 1.5), TypeError, ["ones", "float"]),
    ("empty-float", lambda T, F: T.empty(1.5), TypeError, ["empty", "float"]),
    ("rand-float", lambda T, F: T.rand(1.5), TypeError, ["rand", "float"]),
    ("randn-negative", lambda T, F: T.randn(-2), MiniTorchError, ["randn", "-2"]),
    ("full-float-size", lambda T, F: T.full((2.5,), 1.0), TypeError, ["full", "float"]),
    ("randint-float-size", lambda T, F: T.randint(0, 5, (2.5,)), TypeError, ["randint", "float"]),
    ("randint-float-high", lambda T, F: T.randint(0, 5.5, (2,)), TypeError, ["randint", "'high'", "5.5"]),
    ("randint-int-size", lambda T, F: T.randint(0, 5, 3), TypeError, ["randint", "'size'", "(3,)"]),
    ("randint-low-not-below-high", lambda T, F: T.randint(5, 5, (2,)), MiniTorchError, ["randint", "low=5", "high=5"]),
    ("randperm-float", lambda T, F: T.randperm(2.5), TypeError, ["randperm", "'n'", "float"]),
    ("randperm-negative", lambda T, F: T.randperm(-1), MiniTorchError, ["randperm", "-1"]),
    ("eye-float", lambda T, F: T.eye(2.5), TypeError, ["eye", "'n'", "float"]),
    ("eye-negative", lambda T, F: T.eye(-1), MiniTorchError, ["eye", "-1"]),
    ("eye-float-m", lambda T, F: T.eye(2, 2.5), TypeError, ["eye", "'m'"]),
    ("linspace-float-steps", lambda T, F: T.linspace(0, 1, 2.5), TypeError, ["linspace", "'steps'", "float"]),
    ("linspace-negative-steps", lambda T, F: T.linspace(0, 1, -1), MiniTorchError, ["linspace", "steps", "-1"]),
    ("arange-zero-step", lambda T, F: T.arange(0, 5, 0), MiniTorchError, ["arange", "step", "nonzero"]),
    ("arange-step-sign", lambda T, F: T.arange(0, 5, -1), MiniTorchError, ["arange", "step sign"]),
    ("arange-nan", lambda T, F: T.arange(float("nan")), MiniTorchError, ["arange", "nan"]),
    ("arange-inf", lambda T, F: T.arange(float("inf")), MiniTorchError, ["arange", "inf"]),
    # ------------------------------------------------------------- where, pow, matmul, indexing
    (
        "where-float-condition",
        lambda T, F: T.where(x34(T), x34(T), x34(T)),
        MiniTorchError,
        ["where", "boolean", "float32", "x > 0"],
    ),
    (
        "where-int-condition",
        lambda T, F: T.where(T.arange(3), T.ones(3), T.zeros(3)),
        MiniTorchError,
        ["where", "int64"],
    ),
    ("pow-int-negative-scalar", lambda T, F: T.tensor([2]) ** -1, MiniTorchError, ["pow", "negative", ".float()"]),
    ("sub-two-bools", lambda T, F: T.tensor([True]) - T.tensor([True]), MiniTorchError, ["sub", "bool", "^"]),
    ("matmul-inner-mismatch", lambda T, F: x34(T) @ x34(T), MiniTorchError, ["matmul", "(3, 4) @ (3, 4)"]),
    ("matmul-scalar", lambda T, F: x34(T) @ T.tensor(1.0), MiniTorchError, ["matmul", "()"]),
    ("matmul-vectors", lambda T, F: T.ones(3) @ T.ones(4), MiniTorchError, ["matmul", "(3,) @ (4,)"]),
    ("matmul-dtypes", lambda T, F: x34(T) @ x34(T).t().double(), MiniTorchError, ["matmul", "float64", ".float()"]),
    ("index-out-of-range", lambda T, F: x34(T)[3], IndexError, ["index 3", "size 3"]),
    ("index-negative-out-of-range", lambda T, F: x34(T)[-4], IndexError, ["index -4"]),
    ("index-second-dim", lambda T, F: x34(T)[0, 4], IndexError, ["index 4", "1"]),
    ("index-too-many", lambda T, F: x34(T)[0, 0, 0], IndexError, ["too many indices"]),
    ("index-float", lambda T, F: x34(T)[1.0], IndexError, ["integers"]),
    ("index-tensor-out-of-range", lambda T, F: x34(T)[T.tensor([0, 5])], IndexError, ["index 5"]),
    ("index-float-tensor", lambda T, F: x34(T)[T.tensor([0.0, 1.0])], IndexError, ["long", "bool"]),
    ("index-0d", lambda T, F: T.tensor(1.0)[0], IndexError, ["0-dim", "item()"]),
    ("clamp-no-bounds", lambda T, F: x34(T).clamp(), MiniTorchError, ["clamp", "min", "max"]),
    # ------------------------------------------------------------- conv and pooling
    (
        "conv-stride-zero",
        lambda T, F: F.conv2d(img(T), weight(T), stride=0),
        MiniTorchError,
        ["conv2d", "stride", "(0, 0)"],
    ),
    (
        "conv-stride-negative",
        lambda T, F: F.conv2d(img(T), weight(T), stride=-1),
        MiniTorchError,
        ["conv2d", "stride", "-1"],
    ),
    (
        "conv-padding-negative",
        lambda T, F: F.conv2d(img(T), weight(T), padding=-1),
        MiniTorchError,
        ["conv2d", "padding", "-1"],
    ),
    (
        "conv-kernel-zero",
        lambda T, F: F.conv2d(img(T), weight(T, 0, 3)),
        MiniTorchError,
        ["conv2d", "kernel", "(0, 3)"],
    ),
    (
        "conv-kernel-larger",
        lambda T, F: F.conv2d(img(T), weight(T, 7, 7)),
        MiniTorchError,
        ["conv2d", "(7, 7)", "(5, 5)"],
    ),
    ("conv-channels", lambda T, F: F.conv2d(img(T), T.ones(3, 4, 3, 3)), MiniTorchError, ["conv2d", "channels"]),
    (
        "conv-stride-float",
        lambda T, F: F.conv2d(img(T), weight(T), stride=1.5),
        TypeError,
        ["conv2d", "'stride'", "1.5"],
    ),
    (
        "conv-stride-triple",
        lambda T, F: F.conv2d(img(T), weight(T), stride=(1, 1, 1)),
        MiniTorchError,
        ["conv2d", "stride", "(1, 1, 1)"],
    ),
    (
        "conv-bias-shape",
        lambda T, F: F.conv2d(img(T), weight(T), bias=T.zeros(2)),
        MiniTorchError,
        ["conv2d", "bias", "(3,)", "(2,)"],
    ),
    (
        "conv-dtypes",
        lambda T, F: F.conv2d(img(T).double(), weight(T)),
        MiniTorchError,
        ["conv2d", "float64", "float32"],
    ),
    (
        "pool-stride-zero",
        lambda T, F: F.max_pool2d(img(T), 2, stride=0),
        MiniTorchError,
        ["max_pool2d", "stride", "(0, 0)"],
    ),
    (
        "pool-stride-negative",
        lambda T, F: F.max_pool2d(img(T), 2, stride=-1),
        MiniTorchError,
        ["max_pool2d", "stride", "-1"],
    ),
    ("pool-kernel-zero", lambda T, F: F.max_pool2d(img(T), 0), MiniTorchError, ["max_pool2d", "kernel_size", "(0, 0)"]),
    (
        "pool-kernel-negative",
        lambda T, F: F.max_pool2d(img(T), -1),
        MiniTorchError,
        ["max_pool2d", "kernel_size", "-1"],
    ),
    ("pool-kernel-larger", lambda T, F: F.max_pool2d(img(T), 6), MiniTorchError, ["max_pool2d", "(6, 6)", "(5, 5)"]),
    ("pool-kernel-float", lambda T, F: F.max_pool2d(img(T), 2.0), TypeError, ["max_pool2d", "'kernel_size'", "float"]),
    ("pool-kernel-triple", lambda T, F: F.max_pool2d(img(T), (2, 2, 2)), MiniTorchError, ["max_pool2d", "kernel_size"]),
    ("pool-2d-input", lambda T, F: F.max_pool2d(T.ones(5, 5), 2), MiniTorchError, ["max_pool2d", "(5, 5)"]),
    # ------------------------------------------------------------- losses and normalisation
    (
        "ce-target-float",
        lambda T, F: F.cross_entropy(x34(T), T.tensor([0.0, 1.0, 2.0])),
        MiniTorchError,
        ["target", "float32", "long()"],
    ),
    (
        "ce-target-out-of-range",
        lambda T, F: F.cross_entropy(x34(T), T.tensor([0, 1, 4])),
        MiniTorchIndexError,
        ["target", "[0, 3]", "4"],
    ),
    (
        "ce-target-negative",
        lambda T, F: F.cross_entropy(x34(T), T.tensor([0, -1, 2])),
        MiniTorchIndexError,
        ["target", "-1"],
    ),
    (
        "ce-target-batch",
        lambda T, F: F.cross_entropy(x34(T), T.tensor([0, 1])),
        MiniTorchValueError,
        ["batch_size (3)", "(2)"],
    ),
    (
        "ce-target-column",
        lambda T, F: F.cross_entropy(x34(T), T.tensor([[0], [1], [2]])),
        MiniTorchError,
        ["(3, 1)", "reshape(-1)"],
    ),
    (
        "ce-target-spatial",
        lambda T, F: F.cross_entropy(T.ones(2, 3, 5), T.zeros(2, 4).long()),
        MiniTorchError,
        ["(2, 4)", "(2, 5)"],
    ),
    (
        "ce-reduction",
        lambda T, F: F.cross_entropy(x34(T), T.tensor([0, 1, 2]), reduction="avg"),
        MiniTorchValueError,
        ["reduction", "'avg'"],
    ),
    (
        "nll-target-float",
        lambda T, F: F.nll_loss(x34(T), T.tensor([0.0, 1.0, 2.0])),
        MiniTorchError,
        ["target", "long()"],
    ),
    (
        "mse-integers",
        lambda T, F: F.mse_loss(T.arange(3), T.arange(3)),
        MiniTorchError,
        ["mse_loss", "int64", ".float()"],
    ),
    (
        "batch-norm-channels",
        lambda T, F: F.batch_norm(x34(T), T.zeros(2), T.ones(2)),
        MiniTorchError,
        ["batch_norm", "running_mean", "4"],
    ),
    ("dropout-p", lambda T, F: F.dropout(x34(T), 1.5), MiniTorchValueError, ["dropout", "1.5"]),
]

# Where PyTorch's error type is not the builtin that MiniTorch's derives from.
TORCH_TYPE = {
    "mse-integers": NotImplementedError,  # a RuntimeError: PyTorch has no integer kernel for it
}


def _ids(cases):
    return [c[0] for c in cases]


def _builtin(exc):
    for base in (NotImplementedError, IndexError, ValueError, TypeError, RuntimeError):
        if issubclass(exc, base):
            return base
    return exc


@pytest.mark.parametrize("name, fn, exc, words", CASES, ids=_ids(CASES))
def test_minitorch_refuses_with_a_clear_message(name, fn, exc, words):
    with pytest.raises(exc) as excinfo:
        fn(minitorch, MF)
    message = str(excinfo.value)
    missing = [w for w in words if w not in message]
    assert not missing, f"{name}: {missing} not in {message!r}"


@pytest.mark.parametrize("name, fn, exc, words", CASES, ids=_ids(CASES))
def test_torch_refuses_the_same_input(name, fn, exc, words):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF

    with pytest.raises(TORCH_TYPE.get(name, _builtin(exc))):
        fn(torch, TF)


def test_catalogue_is_large_and_ids_unique():
    assert len(CASES) >= 60
    assert len(set(_ids(CASES))) == len(CASES)


# ---------------------------------------------------------------- inputs PyTorch accepts
ACCEPTED = [
    ("clamp-min-above-max", lambda T, F: T.tensor([0.0, 5.0, 10.0]).clamp(6, 4)),
    ("clamp-tensor-min-above-max", lambda T, F: T.tensor([0.0, 5.0, 10.0]).clamp(T.tensor(6.0), T.tensor(4.0))),
    ("pow-negative-base-fraction", lambda T, F: T.tensor([-8.0, 8.0]) ** (1 / 3)),
    ("pow-int-negative-tensor-exponent", lambda T, F: T.tensor([0, 1, -1, 2, -2, 3]) ** T.tensor(-1)),
    ("pow-int-negative-even-exponent", lambda T, F: T.tensor([0, 1, -1, 2]) ** T.tensor(-2)),
    ("pow-number-base-tensor-exponent", lambda T, F: 2 ** T.tensor([-1, 2])),
    ("int-true-division-by-zero", lambda T, F: T.tensor([1, 0]) / 0),
    ("arange-float", lambda T, F: T.arange(2.5)),
    ("arange-empty", lambda T, F: T.arange(1, 1, -1)),
    ("reshape-numpy-int", lambda T, F: x34(T).reshape(np.int64(4), 3)),
    ("reshape-0d-int-tensor", lambda T, F: x34(T).reshape(T.tensor(12))),
    ("zeros-numpy-int", lambda T, F: T.zeros(np.int64(2))),
    ("unsqueeze-0d-int-tensor", lambda T, F: x34(T).unsqueeze(T.tensor(0))),
    ("sum-list-of-dims", lambda T, F: x34(T).sum([0, 1])),
    ("sum-numpy-dim", lambda T, F: x34(T).sum(np.int64(0))),
    ("squeeze-list-of-dims", lambda T, F: T.zeros(1, 3, 1).squeeze([0, 2])),
    ("transpose-0d", lambda T, F: T.tensor(1.0).transpose(0, -1)),
    ("flatten-0d", lambda T, F: T.tensor(1.0).flatten(0, 0)),
    ("cat-tuple", lambda T, F: T.cat((x34(T), x34(T)))),
    ("stack-0d", lambda T, F: T.stack([T.tensor(1.0), T.tensor(2.0)])),
    ("where-bool-condition", lambda T, F: T.where(x34(T) > 5, x34(T), T.zeros(3, 4))),
    ("expand-zero", lambda T, F: x34(T)[:1].expand(0, 4)),
    ("linspace-zero-steps", lambda T, F: T.linspace(0, 1, 0)),
    ("pool-empty-stride", lambda T, F: F.max_pool2d(T.arange(50.0).reshape(1, 2, 5, 5), 2, stride=())),
    ("softmax-0d", lambda T, F: F.softmax(T.tensor(1.0), 0)),
]


def _numpy(value):
    return value.detach().numpy() if hasattr(value, "detach") else np.asarray(value.numpy())


@pytest.mark.parametrize("name, fn", ACCEPTED, ids=_ids(ACCEPTED))
def test_minitorch_accepts(name, fn):
    out = fn(minitorch, MF)
    assert isinstance(out, minitorch.Tensor)


@pytest.mark.parametrize("name, fn", ACCEPTED, ids=_ids(ACCEPTED))
def test_accepted_inputs_match_torch(name, fn):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF

    ours, theirs = fn(minitorch, MF), fn(torch, TF)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-6, equal_nan=True)


# ---------------------------------------------------------------- helpers and // and %
def test_check_dim_is_the_one_place_dims_become_ints():
    from minitorch.errors import check_dim, check_int, check_sizes

    assert check_dim("sum", np.int64(-1), 2) == 1
    assert check_dim("sum", minitorch.tensor(1), 2) == 1
    assert check_int("eye", "n", np.int32(3)) == 3
    assert check_sizes("zeros", "size", (2, np.int64(3))) == (2, 3)
    with pytest.raises(TypeError, match=r"mine\(\): argument 'dim' must be int, not NoneType"):
        check_dim("mine", None, 2)
    with pytest.raises(TypeError, match=r"mine\(\): argument 'dim' must be int, not Tensor"):
        check_dim("mine", minitorch.tensor(1.0), 2)


def test_new_error_types_are_both_minitorch_errors_and_builtins():
    assert issubclass(MiniTorchValueError, ValueError) and issubclass(MiniTorchValueError, RuntimeError)
    assert issubclass(MiniTorchIndexError, IndexError) and issubclass(MiniTorchIndexError, MiniTorchError)


@pytest.mark.parametrize("op", ["floor_divide", "remainder"])
def test_integer_division_by_zero_is_refused(op):
    from minitorch.functions import arithmetic

    fn = getattr(arithmetic, op)
    with pytest.raises(MiniTorchError, match=rf"{op}: integer division by zero"):
        fn(minitorch.tensor([1, 2]), minitorch.tensor([1, 0]))
    with pytest.raises(MiniTorchError, match="division by zero"):
        fn(minitorch.tensor([1, 2]), 0)
    assert fn(minitorch.tensor([7, -7]), 2).tolist() == ([3, -4] if op == "floor_divide" else [1, 1])
    assert np.isnan(fn(minitorch.tensor([1.0]), 0.0).numpy()).all() == (op == "remainder")


def test_integer_division_by_zero_in_torch():
    torch = pytest.importorskip("torch")
    for fn in (torch.floor_divide, torch.remainder):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(torch.tensor([1, 2]), torch.tensor([1, 0]))
