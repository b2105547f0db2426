"""The errors a learner can hit, and what they say.

A learner reads the message, not the traceback, so each test checks that the message
names the op and the shapes, dtypes or devices involved. Most are ``MiniTorchError``
(a ``RuntimeError``, as PyTorch raises); index and dtype mistakes keep Python's
``IndexError`` / ``TypeError``.
"""

import re

import numpy as np
import pytest

import minitorch
from minitorch import autograd, backends
from minitorch.errors import MiniTorchError, device_mismatch_message
from minitorch.functions import MatMul


def message_of(excinfo):
    return str(excinfo.value)


# ---------------------------------------------------------------------- shapes
@pytest.mark.parametrize(
    "op, name",
    [
        (lambda a, b: a + b, "Add"),
        (lambda a, b: a - b, "Sub"),
        (lambda a, b: a * b, "Mul"),
        (lambda a, b: a / b, "Div"),
        (lambda a, b: a**b, "Pow"),
        (minitorch.maximum, "Maximum"),
    ],
)
def test_incompatible_broadcast_names_op_and_shapes(op, name):
    with pytest.raises(MiniTorchError) as excinfo:
        op(minitorch.ones(3, 4), minitorch.ones(2, 4))
    message = message_of(excinfo)
    assert name in message
    assert "(3, 4)" in message and "(2, 4)" in message
    assert "broadcast" in message


def test_broadcast_error_is_a_runtime_error_like_pytorch():
    with pytest.raises(RuntimeError):
        minitorch.ones(3) + minitorch.ones(4)


def test_broadcast_error_in_where_and_comparison():
    with pytest.raises(MiniTorchError, match=r"Where.*\(2, 2\).*\(3, 4\)"):
        minitorch.where(minitorch.ones(2, 2) > 0, minitorch.ones(3, 4), 0.0)
    with pytest.raises(MiniTorchError, match=r"\(3, 4\).*\(2, 4\)"):
        _ = minitorch.ones(3, 4) < minitorch.ones(2, 4)


def test_broadcast_shape_helper_error():
    with pytest.raises(MiniTorchError, match=r"myop: shapes \(3, 1\) and \(1, 5\) and \(4, 5\)"):
        minitorch.broadcast_shape((3, 1), (1, 5), (4, 5), op="myop")


def test_matmul_inner_dimension_mismatch():
    with pytest.raises(MiniTorchError) as excinfo:
        minitorch.ones(3, 4) @ minitorch.ones(3, 4)
    message = message_of(excinfo)
    assert "matmul" in message
    assert "(3, 4) @ (3, 4)" in message
    assert "4 != 3" in message


def test_matmul_vector_and_batch_mismatch():
    with pytest.raises(MiniTorchError, match=r"matmul.*\(3, 4\) @ \(5,\)"):
        minitorch.ones(3, 4) @ minitorch.ones(5)
    with pytest.raises(MiniTorchError, match=r"matmul.*batch.*\(2,\).*\(3,\)"):
        minitorch.ones(2, 3, 4) @ minitorch.ones(3, 4, 5)
    with pytest.raises(MiniTorchError, match=r"matmul.*at least 1 dimension.*\(\)"):
        minitorch.tensor(2.0) @ minitorch.ones(3)


def test_view_on_non_contiguous_tensor():
    t = minitorch.ones(3, 4).T
    with pytest.raises(MiniTorchError) as excinfo:
        t.view(12)
    message = message_of(excinfo)
    assert "view" in message and "(4, 3)" in message and "(12,)" in message
    assert "contiguous" in message and "reshape" in message  # says how to fix it
    assert t.reshape(12).shape == (12,)
    assert t.contiguous().view(12).shape == (12,)


@pytest.mark.parametrize("method", ["reshape", "view"])
def test_reshape_to_incompatible_size(method):
    with pytest.raises(MiniTorchError) as excinfo:
        getattr(minitorch.ones(3, 4), method)(5, 3)
    message = message_of(excinfo)
    assert method in message
    assert "(3, 4)" in message and "(5, 3)" in message
    assert "12" in message and "15" in message


def test_reshape_with_two_inferred_dims():
    with pytest.raises(MiniTorchError, match=r"reshape: only one dimension can be -1"):
        minitorch.ones(3, 4).reshape(-1, -1)


@pytest.mark.parametrize(
    "fn, pattern",
    [
        (lambda t: minitorch.cat([t, minitorch.ones(3, 5)]), r"cat.*\(3, 4\).*\(3, 5\)"),
        (lambda t: minitorch.stack([t, minitorch.ones(2, 4)]), r"stack.*\(3, 4\).*\(2, 4\)"),
        (lambda t: t.expand(3, 5), r"expand.*size 5.*size 4.*\(3, 4\)"),
        (lambda t: t.permute(0, 0), r"permute.*\(0, 0\)"),
        (lambda t: t.permute(1, 0, 2), r"permute.*3 dims.*\(3, 4\)"),
        (lambda t: t.flatten(1, 0), r"flatten"),
    ],
)
def test_shape_op_errors(fn, pattern):
    with pytest.raises(MiniTorchError, match=pattern):
        fn(minitorch.ones(3, 4))


@pytest.mark.parametrize(
    "fn, op, allowed",
    [
        (lambda t: t.sum(2), "sum", "-2 to 1"),
        (lambda t: t.mean(-3), "mean", "-2 to 1"),
        (lambda t: t.amax((0, 5)), "amax", "-2 to 1"),
        (lambda t: t.transpose(0, 2), "transpose", "-2 to 1"),
        (lambda t: t.unsqueeze(4), "unsqueeze", "-3 to 2"),  # a new dim may go at the end
        (lambda t: t.squeeze(2), "squeeze", "-2 to 1"),
        (lambda t: t.size(2), "size", "-2 to 1"),
    ],
)
def test_dimension_out_of_range(fn, op, allowed):
    with pytest.raises(IndexError) as excinfo:
        fn(minitorch.ones(3, 4))
    message = message_of(excinfo)
    assert op in message and "out of range" in message and allowed in message


def test_duplicate_dims_in_reduction():
    with pytest.raises(MiniTorchError, match=r"sum: dim \(0, -2\) appears multiple times"):
        minitorch.ones(3, 4).sum((0, -2))


# ---------------------------------------------------------------------- indexing
@pytest.mark.parametrize(
    "index, size_text",
    [
        (3, "index 3"),
        (-4, "index -4"),
        ((0, 4), "index 4"),
        (minitorch.tensor([0, 5]), "index 5"),
    ],
)
def test_index_out_of_range(index, size_text):
    with pytest.raises(IndexError) as excinfo:
        minitorch.ones(3, 4)[index]
    message = message_of(excinfo)
    assert "Index" in message and size_text in message and "(3, 4)" in message


def test_too_many_indices_and_wrong_mask():
    with pytest.raises(IndexError, match=r"too many indices.*\(3, 4\)"):
        minitorch.ones(3, 4)[0, 0, 0]
    with pytest.raises(IndexError, match=r"boolean index.*\(3, 4\) float32, \(2,\) bool"):
        minitorch.ones(3, 4)[minitorch.tensor([True, False])]


def test_float_tensor_as_index():
    with pytest.raises(IndexError, match=r"long \(int64\) or bool, got minitorch.float32"):
        minitorch.ones(3)[minitorch.tensor([0.0])]


# ---------------------------------------------------------------------- dtypes
@pytest.mark.parametrize(
    "make",
    [
        lambda: minitorch.tensor([1, 2], requires_grad=True),
        lambda: minitorch.tensor([1, 2]).requires_grad_(),
        lambda: minitorch.zeros(2, dtype=minitorch.int64, requires_grad=True),
        lambda: minitorch.tensor([True], requires_grad=True),
        lambda: minitorch.arange(3, requires_grad=True),
    ],
)
def test_requires_grad_on_non_float_tensor(make):
    with pytest.raises(MiniTorchError) as excinfo:
        make()
    message = message_of(excinfo)
    assert "requires_grad" in message and "floating point" in message
    assert re.search(r"minitorch\.(int64|bool)", message)
    assert ".float()" in message  # how to fix it


@pytest.mark.parametrize("spec", ["complex64", "bfloat16", np.complex128, "int8", object])
def test_unknown_dtype(spec):
    with pytest.raises(TypeError) as excinfo:
        minitorch.zeros(2, dtype=spec)
    message = message_of(excinfo)
    assert "unknown dtype" in message
    assert "float32" in message and "float64" in message and "int64" in message and "bool" in message


def test_unknown_dtype_in_tensor_and_cast():
    with pytest.raises(TypeError, match=r"unknown dtype 'bfloat16'"):
        minitorch.tensor([1.0], dtype="bfloat16")
    with pytest.raises(TypeError, match=r"unknown dtype"):
        minitorch.ones(2).to(np.complex64)


def test_non_numeric_data():
    with pytest.raises(TypeError, match=r"tensor\(\).*str"):
        minitorch.tensor("abc")


def test_mean_of_integer_tensor():
    with pytest.raises(MiniTorchError, match=r"mean\(\).*floating point.*minitorch.int64"):
        minitorch.tensor([1, 2]).mean()


# ---------------------------------------------------------------------- backward misuse
def test_backward_on_non_scalar_without_gradient():
    y = minitorch.ones(3, 2, requires_grad=True) * 2
    with pytest.raises(MiniTorchError) as excinfo:
        y.backward()
    message = message_of(excinfo)
    assert "backward" in message and "scalar" in message and "(3, 2)" in message
    assert "gradient=" in message


def test_backward_with_gradient_of_wrong_shape():
    y = minitorch.ones(3, requires_grad=True) * 2
    with pytest.raises(MiniTorchError, match=r"gradient has shape \(2,\).*shape \(3,\)"):
        y.backward(minitorch.ones(2))


def test_backward_on_tensor_without_grad():
    with pytest.raises(MiniTorchError, match=r"backward\(\).*does not require grad.*requires_grad=True"):
        (minitorch.ones(3) * 2).sum().backward()


def test_second_backward_after_buffers_freed():
    x = minitorch.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError) as excinfo:
        y.backward()
    message = message_of(excinfo)
    assert "MulBackward" in message
    assert "second time" in message and "retain_graph=True" in message


def test_item_of_many_elements_and_truth_value():
    with pytest.raises(MiniTorchError, match=r"item\(\).*12 elements.*\(3, 4\)"):
        minitorch.ones(3, 4).item()
    with pytest.raises(MiniTorchError, match=r"truth value.*12 elements.*ambiguous"):
        bool(minitorch.ones(3, 4))


def test_numpy_of_tensor_requiring_grad():
    with pytest.raises(MiniTorchError, match=r"numpy\(\).*requires grad.*detach\(\)\.numpy\(\)"):
        minitorch.ones(2, requires_grad=True).numpy()


def test_in_place_change_of_a_leaf_requiring_grad():
    w = minitorch.ones(2, requires_grad=True)
    with pytest.raises(MiniTorchError, match=r"add_.*requires grad.*no_grad"):
        w.add_(1)
    with minitorch.no_grad():
        w.add_(1)
    assert w.tolist() == [2.0, 2.0]


def test_hook_on_tensor_without_grad():
    with pytest.raises(MiniTorchError, match=r"register_hook.*doesn't require grad"):
        minitorch.ones(2).register_hook(lambda g: g)


# ---------------------------------------------------------------------- devices
def test_device_mismatch_message_names_op_and_both_devices():
    message = device_mismatch_message("Add", [(0, "cpu"), (1, "cuda")])
    assert message.startswith("Add:")
    assert "cpu" in message and "cuda" in message
    assert "input 0 on cpu" in message and "input 1 on cuda" in message


def test_device_mismatch_raised_by_an_op(monkeypatch):
    # Pretend one tensor's array lives on a GPU: Function.apply must refuse to mix them.
    # (A subclass, since apply recognises a plain numpy.ndarray as CPU without asking.)
    class PretendGpuArray(np.ndarray):
        pass

    on_gpu = minitorch.ones(2)
    on_gpu.data = on_gpu.data.view(PretendGpuArray)
    gpu = backends.get("cuda")
    real_of = backends.of
    monkeypatch.setattr(backends, "of", lambda a: gpu if a is on_gpu.data else real_of(a))
    with pytest.raises(MiniTorchError) as excinfo:
        minitorch.ones(2) * on_gpu
    message = message_of(excinfo)
    assert "Mul" in message and "input 0 on cpu" in message and "input 1 on cuda" in message


@pytest.mark.gpu
@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="needs a CUDA device")
def test_device_mismatch_on_a_real_gpu():
    with pytest.raises(MiniTorchError, match=r"Add.*cpu.*cuda"):
        minitorch.ones(2) + minitorch.ones(2).cuda()


def test_unknown_device():
    with pytest.raises(RuntimeError, match=r"unknown device 'tpu'.*'cpu' or 'cuda'"):
        minitorch.ones(2).to("tpu")


@pytest.mark.skipif(minitorch.cuda.is_available(), reason="checks the message shown without a GPU")
def test_cuda_without_gpu_says_why():
    with pytest.raises(RuntimeError, match=r"cuda"):
        minitorch.ones(2).cuda()


# ---------------------------------------------------------------------- debug and anomaly tools
def _matmul_backward_with_swapped_grads(ctx, grad):
    """A learner's mistake: the two gradients returned in the wrong order."""
    a, b = ctx.saved_tensors
    return a.T @ grad, grad @ b.T


def test_debug_switch_names_op_input_and_both_shapes():
    autograd.override_backward(MatMul, _matmul_backward_with_swapped_grads)
    autograd.set_debug(True)
    a = minitorch.randn(3, 4, requires_grad=True)
    b = minitorch.randn(4, 3, requires_grad=True)
    with pytest.raises(RuntimeError) as excinfo:
        (a @ b).sum().backward()
    assert "MatMul.backward returned grad of shape (4, 3) for input 0 of shape (3, 4)" in message_of(excinfo)


def test_debug_switch_message_for_a_wrong_second_gradient():
    def wrong_grad_b(ctx, grad):
        a, b = ctx.saved_tensors
        return grad @ b.T, grad @ b.T  # the second should be a.T @ grad

    autograd.override_backward("MatMul", wrong_grad_b)
    a = minitorch.randn(3, 4, requires_grad=True)
    b = minitorch.randn(4, 3, requires_grad=True)
    with autograd.debug_mode():
        with pytest.raises(RuntimeError) as excinfo:
            (a @ b).sum().backward()
    assert "MatMul.backward returned grad of shape (3, 4) for input 1 of shape (4, 3)" in message_of(excinfo)
    assert not autograd.is_debug_enabled()  # debug_mode() switched it back off


def test_debug_switch_with_a_custom_function():
    class Twice(autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return 2 * a + b

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, grad  # forgot to sum b's broadcast dimension

    a = minitorch.randn(3, 4, requires_grad=True)
    b = minitorch.randn(4, requires_grad=True)
    with autograd.debug_mode():
        with pytest.raises(RuntimeError) as excinfo:
            Twice.apply(a, b).sum().backward()
    message = message_of(excinfo)
    assert "Twice.backward returned grad of shape (3, 4) for input 1 of shape (4,)" in message
    assert "broadcast" in message


def test_debug_switch_wrong_number_of_gradients():
    class OneGrad(autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad

    a, b = minitorch.randn(3, requires_grad=True), minitorch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"OneGrad.backward returned 1 gradient\(s\) but forward had 2 input"):
        OneGrad.apply(a, b).sum().backward()


def test_debug_switch_wrong_dtype():
    class WrongDtype(autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return (grad * 2).astype("float64")

    a = minitorch.randn(3, requires_grad=True)
    autograd.set_debug(True)
    expected = r"WrongDtype.backward returned grad of dtype float64 for input 0 of dtype float32"
    with pytest.raises(RuntimeError, match=expected):
        WrongDtype.apply(a).sum().backward()


def test_detect_anomaly_names_op_and_forward_line():
    x = minitorch.tensor([0.0, 1.0], requires_grad=True)
    with autograd.detect_anomaly():
        root = x.sqrt()  # the line the error must point at: d sqrt / dx is inf at 0
        loss = (root * 0).sum()
        with pytest.raises(RuntimeError) as excinfo:
            loss.backward()
    message = message_of(excinfo)
    assert "SqrtBackward" in message
    assert "nan" in message or "inf" in message
    assert "test_errors.py" in message
    assert "root = x.sqrt()" in message


def test_no_anomaly_check_outside_the_context():
    x = minitorch.tensor([0.0, 1.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()
    assert np.isnan(x.grad.numpy()[0])


def test_override_unknown_op_name():
    with pytest.raises(KeyError, match=r"no op named 'Nope'.*MatMul"):
        autograd.override_backward("Nope", lambda ctx, grad: grad)


def test_gradcheck_error_names_input_and_values():
    autograd.override_backward("Sin", lambda ctx, grad: (grad,))  # wrong: should be grad * cos(a)
    x = minitorch.tensor(np.linspace(0.5, 1.5, 3), requires_grad=True)
    with pytest.raises(autograd.GradcheckError) as excinfo:
        autograd.gradcheck(minitorch.sin, (x,))
    message = message_of(excinfo)
    assert "input 0" in message and "(3,)" in message
    assert "numerical" in message and "analytic" in message


def test_matmul_of_mixed_dtypes_is_refused_as_in_pytorch():
    with pytest.raises(MiniTorchError, match=r"matmul: both operands must have the same dtype.*float32.*float64"):
        minitorch.ones(2, 3) @ minitorch.ones(3, dtype=minitorch.float64)


def test_negating_a_bool_tensor_suggests_logical_not():
    with pytest.raises(MiniTorchError, match=r"neg.*bool.*~"):
        -(minitorch.ones(2) > 0)


@pytest.mark.parametrize(
    "data, words",
    [
        ([[1, 2], [3]], "length 2 at dim 1 (got 1)"),
        ([1, [2]], "expected a number at dim 1"),
        ([[1], 2], "expected a sequence at dim 1"),
        ([[[1, 2]], [[3]]], "length 2 at dim 2 (got 1)"),
    ],
)
def test_ragged_lists_name_the_dimension(data, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        minitorch.tensor(data)


@pytest.mark.parametrize(
    "make",
    [
        lambda: minitorch.tensor([2**63]),
        lambda: minitorch.tensor([-(2**64)]),
        lambda: minitorch.tensor(np.array([2**63], dtype=np.uint64)),
    ],
)
def test_integers_beyond_int64_are_refused(make):
    with pytest.raises(MiniTorchError, match="overflows int64"):
        make()


@pytest.mark.parametrize(
    "call",
    [lambda x: x.abs(), lambda x: x.abs_(), lambda x: x**x, lambda x: x @ x],
    ids=["abs", "abs_", "pow", "matmul"],
)
def test_bool_ops_without_a_kernel_raise_not_implemented_as_torch(call):
    # PyTorch: NotImplementedError ("abs" not implemented for 'Bool'); it is a RuntimeError too.
    with pytest.raises(NotImplementedError, match="bool"):
        call(minitorch.tensor([True, False]))
    with pytest.raises(RuntimeError):
        call(minitorch.tensor([True, False]))
