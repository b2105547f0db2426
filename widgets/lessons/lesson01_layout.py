"""Lesson 01's hints: storage offsets, the transpose layout and broadcast shapes, naming the mistake.

    check_function("storage offset", keep_inputs(storage_offset), keep_inputs(offset_from_numpy),
                   offset_cases, compare=offset_hint)
    check_function("transpose layout", keep_inputs(transpose_layout), keep_inputs(reference), cases,
                   compare=transpose_hint)
    check_function("broadcast shape", keep_inputs(broadcast_shape), keep_inputs(reference), cases,
                   compare=broadcast_hint, raises=ValueError)

Each hint computes, from the case's arguments, the answers of the usual slips (indices
added without strides, strides paired the wrong way, only the shape swapped, shapes aligned
on the left...) and says which one the answer is.
"""

from itertools import zip_longest
from typing import Any

from widgets.check.function_checker import same
from widgets.check.outcome import Outcome
from widgets.i18n import _


def offset_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for ``storage_offset(index, strides)``."""
    index, strides = expected.args
    value = got.value
    ok, hint = same(value, expected.value)
    if ok:
        return ok, hint
    if isinstance(value, (list, tuple)):
        return False, _("returned a {type}: return one number, the sum of index[k] * strides[k]",
                        type=type(value).__name__)
    if value == sum(index) and index:
        return False, _("you added the indices: multiply each index by its stride first, then add")
    if value == sum(i * s for i, s in zip(index, reversed(strides))):
        return False, _("index[k] goes with strides[k]: the strides are paired with the wrong indices")
    return False, hint


def transpose_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for ``transpose_layout(shape, strides, dim0, dim1)``: what was (not) swapped."""
    shape, strides, _dim0, _dim1 = expected.args
    value = got.value
    ok, hint = same(value, expected.value)
    if ok or not (isinstance(value, tuple) and len(value) == 2):
        return ok, hint
    want_shape, want_strides = expected.value
    if tuple(value[0]) == want_shape and tuple(value[1]) == tuple(strides) != want_strides:
        return False, _("the shape is swapped but the strides are not: a transpose swaps both (the data stays put)")
    if tuple(value[1]) == want_strides and tuple(value[0]) == tuple(shape) != want_shape:
        return False, _("the strides are swapped but the shape is not: a transpose swaps both")
    if tuple(value[0]) == tuple(shape) and tuple(value[1]) == tuple(strides):
        return False, _("nothing was swapped: swap entries dim0 and dim1 of both the shape and the strides")
    return False, hint


def _left_aligned(shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> Any:
    out = []
    for a, b in zip_longest(shape_a, shape_b, fillvalue=1):
        if a != b and 1 not in (a, b):
            return None
        out.append(a if b == 1 else b)
    return tuple(out)


def broadcast_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for ``broadcast_shape(a, b)``: shapes aligned on the wrong side, max() for size 0."""
    shape_a, shape_b = expected.args
    value = got.value
    ok, hint = same(value, expected.value)
    if ok or not isinstance(value, tuple):
        return ok, hint
    if len(shape_a) != len(shape_b) and value == _left_aligned(shape_a, shape_b):
        return False, _("the shapes are aligned on the left: broadcasting lines them up at the right (the last "
                        "dimensions), so pad the shorter one with 1s in front")
    want = expected.value
    if len(value) == len(want) and all(g == max(w, 1) or g == w for g, w in zip(value, want)) and 0 in want:
        return False, _("a size-1 dimension stretches to the other size even when that is 0: take the other size "
                        "when one is 1, not max(size_a, size_b)")
    return False, hint
