"""The fast guard (``jit/guard_code.py``) is never looser than the full key.

A call whose fast check passes skips building its key, so the check must only pass when
the key would be the traced one's. Each case changes one thing the key reads and asks both:
fast True must imply key equal (and for the unchanged call, the fast check must pass, or
it saves nothing).
"""

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.jit import guards
from minitorch.jit.guard_code import make_fast_guard

RATE = 0.5
LABEL = "a"


def _key(compiled, args):
    return guards.signature(list(args), (), guards.environment(compiled.fn, *compiled._reads))


def _model():
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3), nn.Dropout(0.25))


def _step_reading(model):
    def step(x, scale):
        return (model(x) * scale * RATE).sum(), LABEL

    return step


def _x(shape=(2, 4), dtype=np.float32, requires_grad=False):
    return minitorch.tensor(np.ones(shape, dtype), requires_grad=requires_grad)


CHANGES = {
    "nothing": lambda m, a: a,
    "another tensor, same description": lambda m, a: (_x(), a[1]),
    "shape": lambda m, a: (_x((3, 4)), a[1]),
    "dtype": lambda m, a: (_x(dtype=np.float64), a[1]),
    "requires_grad": lambda m, a: (_x(requires_grad=True), a[1]),
    "a number argument's value": lambda m, a: (a[0], 3.0),
    "a number argument's type": lambda m, a: (a[0], 2),
    "one argument more": lambda m, a: (*a, 1),
    "a tensor for a number": lambda m, a: (a[0], _x()),
    "the model's training flag": lambda m, a: (m.eval(), a)[1],
    "a submodule's setting": lambda m, a: (setattr(m[1], "p", 0.5), a)[1],
    "a global number": lambda m, a: (globals().__setitem__("RATE", 0.75), a)[1],
    "a global string (not in the key)": lambda m, a: (globals().__setitem__("LABEL", "b"), a)[1],
    "grad mode": lambda m, a: (minitorch.set_grad_enabled(False), a)[1],
}


@pytest.mark.parametrize("change", CHANGES)
def test_the_fast_check_passes_only_where_the_key_is_the_same(change):
    global RATE, LABEL
    model = _model()
    compiled = minitorch.compile(_step_reading(model))
    args = (_x(), 2.0)
    traced_key = _key(compiled, args)
    guard = make_fast_guard(compiled.fn, compiled._reads, list(args), ())
    assert guard is not None and guard(args)
    try:
        new_args = CHANGES[change](model, args)
        same_key = _key(compiled, new_args) == traced_key
        assert guard(new_args) == same_key, guard.source
        if change in ("nothing", "another tensor, same description", "a global string (not in the key)"):
            assert same_key
    finally:
        RATE, LABEL = 0.5, "a"
        minitorch.set_grad_enabled(True)


def test_a_repeated_signature_skips_the_key(monkeypatch):
    model = _model().eval()  # no dropout: every replay gives the same number
    compiled = minitorch.compile(lambda x, scale: (model(x).detach() * scale * RATE).sum())
    x = _x()
    first = compiled(x, 2.0).item()
    built = []
    real = guards.signature
    monkeypatch.setattr(guards, "signature", lambda *a: built.append(1) or real(*a))
    for _ in range(3):
        assert compiled(x, 2.0).item() == first
    assert not built and compiled.entries[compiled._last.key].replays == 3
    model.train()  # the fast check fails: the full key, a new trace
    compiled(x, 2.0)
    assert built and compiled.traces == 2


def test_no_fast_guard_where_the_key_describes_a_container():
    compiled = minitorch.compile(lambda xs: sum(x.sum() for x in xs))
    xs = [_x(), _x()]
    assert make_fast_guard(compiled.fn, compiled._reads, [xs], ()) is None
    assert compiled(xs).item() == compiled(xs).item() == 16
