"""Errors that used to be vague, each against PyTorch 2.13 (issue 28, item 5).

Each case runs the same line on ``minitorch`` and on ``torch``: MiniTorch must raise an
exception of the type PyTorch raises (a subclass of it is fine), and its message must name
the op, what was given and what is expected. Where PyTorch accepts the input, the values
are compared instead.
"""

import io
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _sgd(lib, lr=1.0):
    return lib.optim.SGD(lib.nn.Linear(2, 2).parameters(), lr=lr)


def _nested_list(depth):
    data = inner = []
    for _ in range(depth):
        child = []
        inner.append(child)
        inner = child
    return data


def _nested_dict(depth):
    data = inner = {}
    for _ in range(depth):
        inner["a"] = {}
        inner = inner["a"]
    return data


def _loader_out_of_range(lib):
    ds = lib.utils.data.TensorDataset(lib.arange(10))
    return list(lib.utils.data.DataLoader(ds, sampler=[0, 99]))


def _lambda_lr_string(lib):
    return lib.optim.lr_scheduler.LambdaLR(_sgd(lib), lambda epoch: "a")


def _rnn_cell_unknown(lib):
    cell = lib.nn.RNNCell(3, 4, nonlinearity="foo")  # both accept it here ...
    return cell(lib.zeros(2, 3))  # ... and refuse it at the first call


CASES = {
    # id: (the line, PyTorch's exception type, fragments MiniTorch's message must hold)
    "autocast-bfloat16": (
        lambda lib: lib.autocast("cpu", dtype=lib.bfloat16 if lib is torch else "bfloat16"),
        None,  # PyTorch warns and disables autocast; MiniTorch refuses, naming both dtypes
        ["autocast", "bfloat16", "float16", "not supported"],
    ),
    "lambda-lr-returns-str": (_lambda_lr_string, TypeError, ["LambdaLR", "lr_lambda(0)", "str", "'a'", "number"]),
    "sampler-index-past-the-end": (_loader_out_of_range, IndexError, ["DataLoader", "sampler", "99", "10 samples"]),
    "manual-seed-string": (lambda lib: lib.manual_seed("abc"), ValueError, ["manual_seed", "'abc'", "integer"]),
    "manual-seed-none": (lambda lib: lib.manual_seed(None), TypeError, ["manual_seed", "NoneType", "integer"]),
    "tensor-of-a-string": (lambda lib: lib.tensor(["x"]), ValueError, ["tensor()", "'x'", "[0]", "numbers"]),
    "tensor-string-among-numbers": (
        lambda lib: lib.tensor([[1, "x"]]),
        TypeError,
        ["tensor()", "'x'", "[0][1]", "numbers"],
    ),
    "tensor-nested-10000-deep": (
        lambda lib: lib.tensor(_nested_list(10_000)),
        ValueError,
        ["tensor()", "nested more than 64", "at most 64 dimensions"],
    ),
    "save-nested-10000-deep": (
        lambda lib: lib.save(_nested_dict(10_000), io.BytesIO()),
        RecursionError,
        ["save", "nested more than 100 levels", "root['a']['a']"],
    ),
    "rnn-cell-unknown-nonlinearity": (_rnn_cell_unknown, RuntimeError, ["RNNCell", "Unknown nonlinearity", "'foo'"]),
}


@pytest.mark.parametrize("case", CASES)
def test_error_names_what_was_given_and_what_is_expected(case):
    line, torch_type, fragments = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if torch_type is None:
            line(torch)  # PyTorch accepts it (with a warning)
            expected = ValueError
        else:
            with pytest.raises(torch_type):
                line(torch)
            expected = torch_type
    with pytest.raises(expected) as info:
        line(minitorch)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from {message!r}"
    assert len(message) < 400  # one readable sentence, not a dump of the structure


def test_rnn_with_unknown_nonlinearity_is_refused_at_construction_as_in_pytorch():
    with pytest.raises(ValueError):
        torch.nn.RNN(3, 4, nonlinearity="foo")
    with pytest.raises(ValueError, match="nonlinearity 'foo'"):
        minitorch.nn.RNN(3, 4, nonlinearity="foo")


@pytest.mark.parametrize("seed", [7, "42", 3.7, -5, True])
def test_manual_seed_takes_what_int_takes_as_pytorch(seed):
    torch.manual_seed(seed)
    minitorch.manual_seed(seed)
    assert minitorch.initial_seed() == torch.initial_seed()  # the same seed as torch's ...
    assert minitorch.rand(5).tolist() == torch.rand(5).tolist()  # ... so the same numbers


def test_tensor_of_64_nested_lists_still_works():
    data = 1.0
    for _ in range(64):
        data = [data]
    assert minitorch.tensor(data).ndim == torch.tensor(data).ndim == 64


def test_sampler_with_negative_and_valid_indices_loads_as_pytorch():
    rows = np.arange(10)
    th = list(torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(rows)), sampler=[0, -1, 3]))
    mt = list(minitorch.utils.data.DataLoader(minitorch.data.TensorDataset(minitorch.tensor(rows)), sampler=[0, -1, 3]))
    assert [b[0].tolist() for b in mt] == [b[0].tolist() for b in th]


@pytest.mark.parametrize("step_size", [2.5, 3, 0.5])
def test_steplr_with_a_float_step_size_decays_as_pytorch(step_size):
    lrs = {}
    for lib in (torch, minitorch):
        opt = _sgd(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=step_size, gamma=0.5)
        lrs[lib.__name__] = []
        for _ in range(12):
            opt.step()
            sched.step()
            lrs[lib.__name__].append(opt.param_groups[0]["lr"])
    assert lrs["minitorch"] == pytest.approx(lrs["torch"])


@pytest.mark.parametrize("step_size", [0, -1.5, float("nan")])
def test_steplr_refuses_a_step_size_that_is_not_positive(step_size):
    with pytest.raises(ValueError, match="step_size"):
        minitorch.optim.lr_scheduler.StepLR(_sgd(minitorch), step_size=step_size)


def test_lambda_lr_taking_a_one_element_tensor_factor():
    opt = _sgd(minitorch)
    minitorch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: minitorch.tensor(0.5))
    assert opt.param_groups[0]["lr"] == 0.5


def test_tensor_of_a_list_that_contains_itself_is_refused_as_pytorch():
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError):
        torch.tensor(loop)
    with pytest.raises(ValueError, match="nested more than 64 lists deep"):
        minitorch.tensor(loop)


def test_tensor_with_deep_nesting_off_the_first_element_names_the_depth_not_a_raw_recursion_error():
    # PyTorch reads the shape from the first elements ([1.0]) and then fails on the second (a TypeError);
    # MiniTorch's ragged-list errors are ValueErrors, and this one too: never a RecursionError.
    with pytest.raises(TypeError):
        torch.tensor([[1.0], _nested_list(10_000)])
    with pytest.raises(ValueError, match=r"nested deeper than Python can follow .* at most 64 dimensions"):
        minitorch.tensor([[1.0], _nested_list(10_000)])
