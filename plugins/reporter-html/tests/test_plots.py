"""The summary's plots mean what they look like: the paired-effects axis is labelled at round
numbers (it read -62.883 / -31.442), and cost against score draws no empty square when no
attempt recorded a cost."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest
from refig.models import Configuration
from refig_reporter_html.plots import cost_score, effects, nice_step, nice_ticks
from refig_toolkit_analysis import Options, analyse
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run


@pytest.fixture(scope="module")
def analysis(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    configs = [Configuration(model="m", harness=h, workflow=w)
               for h, w in (("h1", "direct"), ("h1", "specialized"), ("h2", "direct"))]
    spec = SyntheticSpec(configs=configs, quality=[[0.3] * 5, [0.93] * 5, [0.55] * 5],
                         tasks=10, images=False)
    store = synthetic_run(tmp_path_factory.mktemp("plots") / "run", spec)
    return analyse(store, Options(resamples=300))


def _ticks(svg: str) -> list[str]:
    return re.findall(r'class="tick">([^<]*)</text>', svg)


def test_effect_ticks_are_round_numbers(analysis) -> None:  # type: ignore[no-untyped-def]
    plot = effects(analysis)
    assert plot.svg is not None, plot.missing
    labels = _ticks(str(plot.svg))
    values = [float(t) for t in labels]
    assert len(values) >= 3 and 0.0 in values
    step = values[1] - values[0]
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 6) in (1, 2, 2.5, 5), labels
    assert all(abs(v / step - round(v / step)) < 1e-9 for v in values), labels
    assert all(len(t.lstrip("+-").replace(".", "")) <= 4 for t in labels), labels


@pytest.mark.parametrize(("low", "high"), [(-62.883, 62.883), (0, 100), (0, 10), (-0.37, 0.37)])
def test_nice_ticks_are_multiples_of_a_round_step(low: float, high: float) -> None:
    step = nice_step(high - low)
    ticks = nice_ticks(low, high)
    assert ticks and all(low - 1e-9 <= t <= high + 1e-9 for t in ticks)
    assert all(abs(t / step - round(t / step)) < 1e-9 for t in ticks)


def test_cost_against_score_says_no_cost_was_recorded(analysis) -> None:  # type: ignore[no-untyped-def]
    assert cost_score(analysis).svg is not None  # costs recorded: drawn
    data = analysis.context.data
    saved = data.outcomes
    data.outcomes = {key: dataclasses.replace(o, attempt=o.attempt.model_copy(
        update={"cost_usd": 0.0})) for key, o in saved.items()}  # as model-free baselines
    try:
        plot = cost_score(analysis)
    finally:
        data.outcomes = saved
    assert plot.svg is None and plot.missing.startswith("no cost recorded")
