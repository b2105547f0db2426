"""Under ``run_as_torch`` a program's ``.data`` is PyTorch's: a detached Tensor over the same memory.

The rewrite (``minitorch/compat/torch_script.py``) is tested on its own, then whole programs using
the idioms of pytorch/examples and the older tutorials run under both frameworks and must
print the same numbers.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minitorch
from minitorch.compat import torch_script


def _run_rewritten(code, namespace=None):
    namespace = torch_script.prepare_namespace(namespace or {"torch": minitorch})
    exec(torch_script.compile_torch_source(textwrap.dedent(code), "<test>"), namespace)
    return namespace


def test_data_of_a_tensor_is_a_detached_tensor_over_the_same_array():
    p = minitorch.nn.Parameter(minitorch.ones(3))
    (p * p).sum().backward()
    view = torch_script.torch_data(p)
    assert isinstance(view, minitorch.Tensor) and view.data is p.data
    assert not view.requires_grad and view.grad_fn is None
    view.add_(p.grad, alpha=-0.5)  # allowed outside no_grad, and recorded nowhere, as PyTorch's .data
    assert p.tolist() == [0.0, 0.0, 0.0] and p.is_leaf and p.grad_fn is None
    assert p._version == 0, "changes through .data are not counted against the original, as in PyTorch"


def test_data_of_anything_else_is_the_plain_attribute():
    class Dataset:
        data = [1, 2, 3]
    assert torch_script.torch_data(Dataset()) == [1, 2, 3]
    ns = _run_rewritten("""
        class Corpus:
            def __init__(self):
                self.data = [4, 5]
        c = Corpus()
        c.data = c.data + [6]
        result = c.data
    """)
    assert ns["result"] == [4, 5, 6]


def test_assigning_data_takes_the_tensors_array_and_refuses_an_ndarray():
    ns = _run_rewritten("""
        w = torch.ones(2, 3)
        w.data = w.data.clamp(max=0.5)[:, :2]
    """)
    assert ns["w"].shape == (2, 2) and ns["w"].tolist() == [[0.5, 0.5], [0.5, 0.5]]
    with pytest.raises(TypeError, match="has to be a Tensor, but got ndarray"):
        _run_rewritten("w = torch.ones(2)\nw.data = w.numpy() * 2\n")


def test_augmented_assignment_and_chains_are_rewritten_only_where_they_read():
    ns = _run_rewritten("""
        p = torch.nn.Parameter(torch.ones(2))
        (p * 3).sum().backward()
        array = p.data
        p.data -= 0.1 * p.grad.data
        p.grad.data.zero_()
    """)
    assert np.allclose(ns["p"].tolist(), [0.7, 0.7]) and ns["p"].grad.tolist() == [0.0, 0.0]
    assert ns["array"].data is ns["p"].data, "the update wrote into the parameter's own memory"


def _run_both(tmp_path, files):
    for name, code in files.items():
        (tmp_path / name).write_text(textwrap.dedent(code))
    runs = []
    for command in ([sys.executable, "-m", "minitorch.run_as_torch", "main.py"], [sys.executable, "main.py"]):
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env={"PYTHONDONTWRITEBYTECODE": "", "PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr
        runs.append(done.stdout)
        if not (tmp_path / "__pycache__").exists():
            runs.append("no bytecode")  # the rewritten modules left none a plain python run would pick up
    return runs


PROGRAM = {
    "init_weights.py": """
        def init_weights(m):
            m.weight.data.normal_(0.0, 0.02)   # GAN tutorials, minGPT
            m.bias.data.zero_()
    """,
    "main.py": """
        import torch
        import torch.nn as nn
        from init_weights import init_weights
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
        model.apply(lambda m: init_weights(m) if isinstance(m, nn.Linear) else None)
        x, target = torch.randn(16, 4), torch.randint(0, 3, (16,))
        for step in range(5):
            model.zero_grad()
            loss = nn.functional.cross_entropy(model(x), target)
            loss.backward()
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.5)     # pytorch/examples' word language model
            print(step, f"{loss.item():.6f}")
        pred = model(x).data.max(1, keepdim=True)[1]  # the old MNIST example
        print("correct", pred.eq(target.data.view_as(pred)).sum().item())
        w = model[0].weight
        w.data = w.data.clamp(-0.01, 0.01)          # WGAN's weight clipping
        print("clipped", f"{w.abs().max().item():.4f}", type(w.data).__name__)
    """,
}


def test_a_program_with_pytorchs_data_idioms_prints_pytorchs_numbers(tmp_path):
    pytest.importorskip("torch")
    mine, no_bytecode, theirs = _run_both(tmp_path, PROGRAM)
    assert mine == theirs
    assert no_bytecode == "no bytecode"
