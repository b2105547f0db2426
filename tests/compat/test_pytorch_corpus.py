"""examples/pytorch/corpus/: programs in the style learners bring (makemore, nanoGPT, pytorch/examples), run under both.

Each script runs unchanged with ``python -m minitorch.run_as_torch`` and with PyTorch,
within ``TIME_BOUND`` seconds each, and their printed lines are compared:

- ``exact`` scripts start from fixed weights: every number must agree now, to the
  script's tolerance;
- ``seeded`` scripts draw their weights, batches and samples from ``torch.manual_seed``'s
  stream, which MiniTorch's CPU generator reproduces (tests/core/ holds its parity tests):
  every number and every sampled word must agree too. Should the streams ever part
  (``minitorch_has_torch_rng()`` False), the seeded cases fail saying so, rather than
  quietly comparing less.
"""

import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import minitorch

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "pytorch" / "corpus"
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
# A guard against a hang, not a speed test: each run takes one to 15 seconds on an idle machine,
# and over 60 s (nanogpt_tiny) on a loaded 2-core one running two pytest workers at once.
TIME_BOUND = 300  # seconds per run


def minitorch_has_torch_rng():
    """True once ``minitorch.manual_seed(0); minitorch.rand(5)`` gives PyTorch's numbers."""
    try:
        import torch
    except ImportError:
        return False
    minitorch.manual_seed(0)
    mine = minitorch.rand(5).numpy()
    torch.manual_seed(0)
    return bool(np.allclose(mine, torch.rand(5).numpy(), rtol=0, atol=1e-7))


RNG_PARITY = minitorch_has_torch_rng()


class Case:
    """One run of a corpus script and how to compare it.

    ``kind``: "exact" (fixed weights) or "seeded" (drawn from the random stream);
    ``falling``: a regex whose group 1 is a loss that must end lower than it starts.
    """

    def __init__(self, script, args=(), kind="seeded", rtol=1e-5, atol=1e-5, falling=None):
        self.script, self.args, self.kind, self.rtol, self.atol = script, list(args), kind, rtol, atol
        self.falling = re.compile(falling) if falling else None

    def __repr__(self):
        return " ".join([self.script, *self.args])


CASES = [
    Case("makemore_char_mlp.py", falling=r"^\s*\d+/\s*\d+: ([\d.]+)"),
    Case("nanogpt_tiny.py", falling=r"eval loss ([\d.]+)"),
    Case("word_language_model.py", ["lstm"], falling=r"valid ppl\s+([\d.]+)"),
    Case("word_language_model.py", ["transformer"], falling=r"valid ppl\s+([\d.]+)"),
    Case("time_sequence_prediction.py", kind="exact", rtol=1e-7, atol=1e-9),
    Case("legacy_two_layer_net.py", kind="exact", rtol=1e-5, atol=1e-5),
    Case("char_rnn_names.py", falling=r"loss ([\d.]+)"),
]


def _run(args, cwd):
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=TIME_BOUND)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{done.stderr[-3000:]}"
    return done.stdout.splitlines(), time.perf_counter() - start


def _split(line):
    """(the words with every number replaced by '#', the numbers); minitorch.X reads as torch.X.

    Runs of spaces count as one: a number printed with a width (``{ppl:8.2f}``) pads to its size.
    """
    line = line.replace("minitorch.", "torch.")
    return " ".join(NUMBER.sub("#", line).split()), [float(n) for n in NUMBER.findall(line)]


def _last_place(number):
    """One unit in the last printed digit of ``number`` (0.01 for "8.39"; 0 for an exponent form)."""
    if "e" in number.lower() or "." not in number:
        return 0.0
    return 10.0 ** -len(number.split(".")[1])


def _falling(case, lines):
    values = [float(m.group(1)) for m in map(case.falling.search, lines) if m]
    assert len(values) >= 2, f"{case}: fewer than two losses matched {case.falling.pattern!r}"
    return values


def test_every_corpus_script_has_a_case():
    assert {p.name for p in CORPUS.glob("*.py")} == {case.script for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_corpus_script_runs_unchanged_and_agrees_with_pytorch(case, tmp_path):
    mini, seconds = _run(["-m", "minitorch.run_as_torch", CORPUS / case.script, *case.args], tmp_path)
    assert mini, "the script printed nothing"
    if case.falling is not None:
        losses = _falling(case, mini)
        assert losses[-1] < losses[0], f"MiniTorch's losses did not fall: {losses}"
    try:
        import torch  # noqa: F401
    except ImportError:
        pytest.skip(f"PyTorch is not installed: only the MiniTorch run was checked ({seconds:.1f} s)")
    real, _ = _run([CORPUS / case.script, *case.args], tmp_path)
    assert len(mini) == len(real), "\n".join(mini[-5:] + ["--- PyTorch:"] + real[-5:])
    if case.falling is not None:
        losses = _falling(case, real)
        assert losses[-1] < losses[0], f"PyTorch's losses did not fall: {losses}"
    assert case.kind == "exact" or RNG_PARITY, (
        "MiniTorch's random stream no longer reproduces PyTorch's (manual_seed(0); rand(5) differs): "
        "a seeded script cannot print PyTorch's numbers")
    for i, (m, r) in enumerate(zip(mini, real)):
        (m_words, m_nums), (r_words, r_nums) = _split(m), _split(r)
        where = f"line {i + 1}: {m!r} vs PyTorch's {r!r}"
        assert m_words == r_words, where
        # Within rtol, or one unit in the last printed place: two float32 trainings that sum
        # in another order agree to ~1e-4 after some epochs, which can flip the last digit
        # of a number printed to 2 decimals ("8.39" vs "8.40").
        last_place = np.array([_last_place(n) for n in NUMBER.findall(r.replace("minitorch.", "torch."))])
        allowed = np.maximum(case.rtol * np.abs(r_nums) + case.atol, last_place * 1.0001)
        off = np.abs(np.array(m_nums) - np.array(r_nums)) > allowed
        assert not off.any(), f"{where}: numbers differ beyond rtol={case.rtol} and the last printed digit"
