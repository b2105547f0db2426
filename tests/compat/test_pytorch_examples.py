"""examples/pytorch/: each script runs on MiniTorch through ``run_as_torch`` and prints what PyTorch prints.

Every line is compared: the words must be the same (``minitorch.int64`` reads as
``torch.int64``) and every number equal within a tolerance that suits the script's dtype
(float32 sums in a different order in NumPy and in PyTorch). Without PyTorch installed only
the MiniTorch run is checked (it must finish and print the same number of lines each time).
"""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "pytorch"
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")

# (script, arguments, rtol, atol): float32 scripts agree to float32 rounding; the float64
# ones much closer. RMSprop and Adam are compared loosely: see the docstring of polynomial_nn_optim.py
# (weights whose gradient is rounding noise take full-size steps in the noise's direction):
# PyTorch against itself, with x multiplied by 1 + 1e-15, drifts apart just as much.
CASES = [
    ("polynomial_tensors.py", [], 1e-5, 1e-7),
    ("polynomial_autograd.py", [], 1e-5, 1e-7),
    ("polynomial_custom_function.py", [], 1e-5, 1e-7),
    ("polynomial_nn_optim.py", ["sgd"], 1e-9, 1e-12),
    ("polynomial_nn_optim.py", ["adagrad"], 1e-9, 1e-12),
    ("polynomial_nn_optim.py", ["adam"], 2e-3, 2e-3),
    ("polynomial_nn_optim.py", ["rmsprop"], 1e-2, 2e-3),
    ("digits_classifier.py", [], 1e-4, 2e-6),
    ("tensor_tour.py", [], 1e-6, 1e-7),
    ("build_model.py", [], 1e-5, 1e-6),
    ("autograd_basics.py", [], 1e-5, 1e-6),
]


def _run(args, cwd):
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{done.stderr[-3000:]}"
    return done.stdout.splitlines()


def _split(line):
    """(the words with every number replaced by '#', the numbers)."""
    words = NUMBER.sub("#", line.replace("minitorch.", "torch."))
    return words, [float(n) for n in NUMBER.findall(line.replace("minitorch.", "torch."))]


def test_every_example_has_a_case():
    assert {p.name for p in EXAMPLES.glob("*.py")} == {script for script, *_ in CASES}


@pytest.mark.parametrize("script,args,rtol,atol", CASES, ids=lambda v: str(v) if isinstance(v, (str, list)) else "")
def test_example_prints_the_same_numbers_as_pytorch(script, args, rtol, atol, tmp_path):
    mini = _run(["-m", "minitorch.run_as_torch", EXAMPLES / script, *args], tmp_path)
    assert mini, "the example printed nothing"
    try:
        import torch  # noqa: F401
    except ImportError:
        pytest.skip("PyTorch is not installed: only the MiniTorch run was checked")
    real = _run([EXAMPLES / script, *args], tmp_path)
    assert len(mini) == len(real), "\n".join(mini[-5:] + ["--- PyTorch:"] + real[-5:])
    for i, (m, r) in enumerate(zip(mini, real)):
        (m_words, m_nums), (r_words, r_nums) = _split(m), _split(r)
        assert m_words == r_words, f"line {i + 1}: {m!r} vs PyTorch's {r!r}"
        np.testing.assert_allclose(m_nums, r_nums, rtol=rtol, atol=atol,
                                   err_msg=f"line {i + 1}: {m!r} vs PyTorch's {r!r}")
