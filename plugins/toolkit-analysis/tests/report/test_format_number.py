"""Numbers on the pages read as numbers: a token count was shown as ``9.005e+04``."""

from __future__ import annotations

import math

import pytest
from refig_toolkit_analysis.analysis import format_number


@pytest.mark.parametrize(("value", "text"), [
    (90050.0, "90,050"), (12.0, "12"), (0.0, "0"), (-3.0, "-3"), (1234.56, "1,235"),
    (0.693147, "0.6931"), (12.3456, "12.35"), (0.00001234, "0.00001234"), (None, "—"),
    (math.nan, "—"), (math.inf, "—"),
])
def test_no_exponent_and_thousands_separated(value: float | None, text: str) -> None:
    assert format_number(value) == text
    assert "e" not in format_number(value)
