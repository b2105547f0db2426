"""docs/ARCHITECTURE.md's "How to add an op", run as written.

The recipe's first code block defines an op and its function; the second is the method
line. This test executes them (the method line on a subclass of the ``Tensor`` face, so
nothing leaks into the real class), then checks what the recipe promises: a float64
gradcheck with broadcasting, the function and the method forms, and PyTorch's values.
"""

import re
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck
from minitorch.functions import arithmetic
from minitorch.tensor import Tensor
from minitorch.tensor_base import TensorBase

DOC = Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md"


def recipe_blocks():
    """The ```python blocks of the "How to add an op" section, in order."""
    text = DOC.read_text()
    section = text[text.index("## How to add an op") : text.index("## How to add a backend")]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


@pytest.fixture
def recipe():
    op_block, method_block = recipe_blocks()
    namespace = {}
    exec(compile(op_block, f"{DOC}:op", "exec"), namespace)
    # The method line, run inside a class body as the recipe writes it.
    class_namespace = {"TensorBase": Tensor, "arithmetic": namespace}
    exec(compile(method_block.replace("arithmetic.hypot", "arithmetic['hypot']"), f"{DOC}:method", "exec"),
         class_namespace)
    return namespace, class_namespace["ArithmeticMethods"]


def test_the_recipe_has_the_op_block_and_the_method_line():
    blocks = recipe_blocks()
    assert len(blocks) == 2 and "class Hypot(Function)" in blocks[0] and "hypot = arithmetic.hypot" in blocks[1]


def test_the_recipe_op_passes_gradcheck_with_broadcasting(recipe, rng):
    namespace, _ = recipe
    a = minitorch.tensor(rng.standard_normal((3, 1)) + 2.0, requires_grad=True)  # float64
    b = minitorch.tensor(rng.standard_normal((1, 4)) - 2.0, requires_grad=True)
    assert gradcheck(namespace["hypot"], (a, b))
    assert gradcheck(lambda x: namespace["hypot"](x, 3.0), (a,))  # a Python number operand


def test_the_recipe_op_is_a_function_and_a_method(recipe, rng):
    namespace, methods = recipe
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal(3).astype(np.float32)
    a, b = minitorch.tensor(x, requires_grad=True), minitorch.tensor(y)
    out = namespace["hypot"](a, b)
    assert isinstance(out, Tensor) and out.dtype == minitorch.float32
    assert out.grad_fn.name() == "HypotBackward"
    np.testing.assert_allclose(out.detach().numpy(), np.hypot(x, y), rtol=1e-6)
    # The method line: the function itself, called with the tensor as its first argument.
    assert methods.hypot is namespace["hypot"] and issubclass(methods, TensorBase)
    as_method = methods.hypot(a, b)
    np.testing.assert_array_equal(as_method.detach().numpy(), out.detach().numpy())


def test_the_recipe_op_matches_torch(recipe, rng):
    torch = pytest.importorskip("torch")
    namespace, _ = recipe
    x, y = rng.standard_normal((4, 1)), rng.standard_normal((1, 5))
    a, b = minitorch.tensor(x, requires_grad=True), minitorch.tensor(y, requires_grad=True)
    ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    namespace["hypot"](a, b).sum().backward()
    torch.hypot(ta, tb).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12)


def test_the_recipe_uses_the_helpers_the_package_exports():
    # The recipe imports promote and unbroadcast from where they live.
    assert arithmetic.promote is minitorch.functions.promote
    assert arithmetic.unbroadcast is minitorch.functions.unbroadcast
