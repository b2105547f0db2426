"""Check tables and hints show numbers as a learner reads them; the comparison keeps its tolerance."""

import re

import numpy as np

import minitorch
from widgets import check_function
from widgets.check.check_result import format_value, short
from widgets.style import format_number, format_pair

LONG_FLOAT = re.compile(r"\d\.\d{6,}")  # 7 or more significant digits: machine-dependent noise


def test_format_number_gives_about_four_significant_digits():
    assert format_number(2.2942323684692383) == "2.294"
    assert format_number(np.float32(2.30656576156616)) == "2.307"
    assert format_number(-1.2499999899995284) == "-1.25"
    assert format_number(1e-7) == "1e-07"
    assert format_number(np.float64(2.1629576174192886)) == "2.163"


def test_format_number_keeps_whole_numbers_whole_and_names_the_special_values():
    assert format_number(2.0) == "2.0" and format_number(65536.0) == "65536.0"
    assert format_number(7) == "7" and format_number(np.int64(-3)) == "-3"
    assert format_number(True) == "True"
    assert [format_number(v) for v in (float("nan"), float("inf"), -float("inf"))] == ["nan", "inf", "-inf"]


def test_format_pair_adds_digits_only_until_the_two_differ():
    assert format_pair(2.5, 3.0) == ("2.5", "3.0")
    assert format_pair(1.00012, 1.00013) == ("1.00012", "1.00013")


def test_values_in_containers_are_formatted_too():
    assert format_value([[2.2942323684692383], 3, (0.5,)]) == "[[2.294], 3, (0.5,)]"
    assert format_value({"loss": 0.123456789}) == "{'loss': 0.1235}"
    assert short((np.array([7.436564, -3.2231302], dtype=np.float32), np.float64(2.1629576174192886))) == \
        "([ 7.4366, -3.2231], 2.163)"
    assert short(minitorch.tensor([1.23456789, 2.0])) == "[1.2346, 2. ]"
    assert format_value(list(range(100))).endswith("19, ...]")  # a long list is cut, not formatted whole


def test_a_check_table_shows_a_float32_loss_in_four_digits():
    def loss():
        return [float(np.float32(2.30656576156616)), np.float32(0.1)]

    result = check_function("losses", loss, loss, [()])
    assert result.passed
    shown = repr(result) + result._repr_html_()
    assert "2.307" in shown and not LONG_FLOAT.search(shown)


def test_the_comparison_keeps_its_tolerance_while_the_table_rounds():
    def close(x):
        return x + 1e-9

    def far(x):
        return x + 1e-4

    def reference(x):
        return x

    assert check_function("close", close, reference, [(2.2942323684692383,)]).passed
    result = check_function("far", far, reference, [(2.2942323684692383,)])
    assert not result.passed
    # the hint shows enough digits to see the difference; the cells stay short
    assert result.rows[0].hint == "got 2.2943, expected 2.2942"
    assert result.rows[0].cells["got"] == "2.294" and result.rows[0].cells["expected"] == "2.294"
