"""Judge-human direction agreement follows the ReFigBench protocol: a decisive vote on a pair the
judge scored level is left out and counted, margins below two points are the ties' bucket, and the
older convention (a zero margin is a disagreement) stays available by name."""

from __future__ import annotations

import math

import pytest
from refig_toolkit_analysis import stats

MARGINS = [0.0, 0.0, 1.0, -1.5, 3.0, -7.0, 12.0, 30.0, 0.0]
VOTES = ["A", "B", "A", "A", "A", "B", "B", "A", "tie"]


def test_zero_margins_are_left_out_and_counted() -> None:
    result = stats.direction_agreement(MARGINS, VOTES, zero_margin="exclude")
    assert result.zero_margins == 2 and result.ties == 1
    assert (result.overall.decisive, result.overall.matches) == (6, 4)
    tie_bucket = result.buckets[0]
    assert (tie_bucket.low, tie_bucket.high) == (0.0, stats.TIE_MARGIN)
    assert (tie_bucket.decisive, tie_bucket.matches) == (2, 1)


def test_the_older_convention_counts_zero_margins_as_disagreements() -> None:
    result = stats.direction_agreement(MARGINS, VOTES)  # the function's default, kept
    assert result.zero_margins == 2
    assert (result.overall.decisive, result.overall.matches) == (8, 4)
    assert result.overall.share == pytest.approx(0.5)
    assert (result.buckets[0].decisive, result.buckets[0].matches) == (4, 1)


def test_only_level_pairs_gives_no_share_rather_than_zero() -> None:
    result = stats.direction_agreement([0.0, 0.0], ["A", "B"], zero_margin="exclude")
    assert result.overall.decisive == 0 and math.isnan(result.overall.share)


def test_an_unknown_convention_is_refused() -> None:
    with pytest.raises(ValueError, match="zero_margin"):
        stats.direction_agreement([1.0], ["A"], zero_margin="ignore")  # type: ignore[arg-type]


def test_the_report_follows_the_protocol_by_default() -> None:
    from refig_toolkit_analysis.analysis.context import Options

    assert Options().zero_margin == "exclude"
    assert Options().buckets[:2] == (0.0, stats.TIE_MARGIN)
