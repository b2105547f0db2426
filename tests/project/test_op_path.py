"""The path a reader follows from ``a * b`` and ``.backward()`` into the framework stays short.

A learner who opens MiniTorch after the lessons should meet the steps a lesson teaches:
the operator, the op, ``Function.apply``, the new tensor; then the engine's loop calling
each op's backward. This traces every Python call made inside the ``minitorch`` package
(``sys.setprofile``, after a warm-up) and holds the path to at most 4 files and 8 calls
for ``a * b``, and 5 files and 16 calls for ``c.sum().backward()``, so that it cannot grow
back unnoticed. The same trace is printed by ``python tests/project/test_op_path.py``.
"""

import sys
from pathlib import Path

import minitorch

PACKAGE = str(Path(minitorch.__file__).parent)


def traced_calls(fn):
    """``(file inside minitorch/, function name)`` for every Python call ``fn()`` makes there."""
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(PACKAGE):
            calls.append((str(Path(frame.f_code.co_filename).relative_to(PACKAGE)), frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


def _warm_operands():
    a = minitorch.randn(3, 4, requires_grad=True)
    b = minitorch.randn(3, 4, requires_grad=True)
    for _ in range(3):  # warm-up: first-use work (version counters, .grad buffers) is done
        (a * b).sum().backward()
    return a, b


def _describe(calls):
    return "\n".join(f"  {file}: {name}" for file, name in calls)


def test_a_times_b_takes_at_most_4_files_and_8_calls():
    a, b = _warm_operands()
    calls = traced_calls(lambda: a * b)
    files = {file for file, _ in calls}
    assert len(files) <= 4 and len(calls) <= 8, f"{len(calls)} calls in {len(files)} files:\n{_describe(calls)}"
    # The steps a lesson teaches, in order: the operator, the op, apply, forward, the result.
    names = [name for _, name in calls]
    assert names.index("mul") < names.index("apply") < names.index("forward") < names.index("_make")


def test_sum_backward_takes_at_most_5_files_and_16_calls():
    a, b = _warm_operands()
    c = a * b
    calls = traced_calls(lambda: c.sum().backward())
    files = {file for file, _ in calls}
    assert len(files) <= 5 and len(calls) <= 16, f"{len(calls)} calls in {len(files)} files:\n{_describe(calls)}"
    assert ("autograd/engine.py", "run_backward") in calls
    # The gradients are still right after the short path.
    assert minitorch.allclose(a.grad, b * 4) and minitorch.allclose(b.grad, a * 4)


def test_the_trace_sees_calls_inside_the_package():
    calls = traced_calls(lambda: minitorch.zeros(2).exp())
    assert any(file == "functions/unary.py" for file, _ in calls)


if __name__ == "__main__":
    a, b = _warm_operands()
    print("a * b:")
    print(_describe(traced_calls(lambda: a * b)))
    c = a * b
    print("c.sum().backward():")
    print(_describe(traced_calls(lambda: c.sum().backward())))
