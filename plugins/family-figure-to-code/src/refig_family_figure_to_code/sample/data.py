"""Seeded data for each functional category of FigCodeBench; programs embed or read it."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

CATEGORIES = ("statistical", "temporal", "compositional", "geospatial", "mathematical",
              "relational", "conceptual")

_WORDS = ("Alder", "Birch", "Cedar", "Dune", "Ember", "Fjord", "Grove", "Harbor", "Iris",
          "Juniper", "Kestrel", "Lumen", "Maple", "Nimbus", "Orchid", "Pine", "Quartz", "Reef")
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")


@dataclass(frozen=True)
class SampleData:
    """Everything a template needs for one task: title, colours, labels and numbers."""

    category: str
    title: str
    colour: str
    second_colour: str
    labels: tuple[str, ...]
    values: tuple[float, ...]
    xs: tuple[float, ...] = ()
    ys: tuple[float, ...] = ()
    params: tuple[float, ...] = ()

    def csv(self) -> str:
        """``label,value`` rows: the data file of statistical tasks."""
        rows = "".join(f"{label},{value:g}\n" for label, value in zip(self.labels, self.values,
                                                                     strict=True))
        return "label,value\n" + rows


def sample_data(category: str, seed: int) -> SampleData:
    """Deterministic data for ``category`` from ``seed``."""
    rng = random.Random(f"{category}:{seed}")
    words = rng.sample(_WORDS, 5)
    colour, second = rng.sample(_PALETTE, 2)
    title = f"{words[0]} {category}"
    if category == "statistical":
        labels = tuple(words[:rng.randint(4, 5)])
        values = tuple(float(rng.randint(3, 20)) for _ in labels)
        return SampleData(category, title, colour, second, labels, values)
    if category == "temporal":
        years = tuple(float(2010 + i) for i in range(rng.randint(8, 12)))
        level, series = 10.0, []
        for _ in years:
            level = max(1.0, level + rng.uniform(-2, 3))
            series.append(round(level, 1))
        return SampleData(category, title, colour, second, (), tuple(series), years)
    if category == "compositional":
        cuts = sorted(rng.sample(range(10, 90), 3))
        shares = [cuts[0], cuts[1] - cuts[0], cuts[2] - cuts[1], 100 - cuts[2]]
        return SampleData(category, title, colour, second, tuple(words[:4]),
                          tuple(float(s) for s in shares))
    if category == "geospatial":
        lon0, lat0 = rng.uniform(-10, 20), rng.uniform(40, 55)
        xs = tuple(round(lon0 + rng.uniform(0, 8), 2) for _ in range(12))
        ys = tuple(round(lat0 + rng.uniform(0, 5), 2) for _ in range(12))
        outline = (lon0, lat0, lon0 + 8, lat0 + 5)
        return SampleData(category, title, colour, second, (), (), xs, ys, outline)
    if category == "mathematical":
        amplitude, frequency = rng.choice((1.0, 1.5, 2.0)), rng.choice((1.0, 2.0, 3.0))
        return SampleData(category, title, colour, second, (), (), params=(amplitude, frequency))
    if category == "relational":
        slope, intercept = rng.uniform(0.5, 2), rng.uniform(0, 5)
        xs = tuple(round(rng.uniform(0, 10), 2) for _ in range(20))
        ys = tuple(round(slope * x + intercept + rng.gauss(0, 1.5), 2) for x in xs)
        return SampleData(category, title, colour, second, (), (), xs, ys, (slope, intercept))
    if category == "conceptual":
        steps = tuple(words[:rng.randint(3, 4)])
        return SampleData(category, title, colour, second, steps, ())
    raise ValueError(f"unknown category {category!r}; choose one of: {', '.join(CATEGORIES)}")


def fit(xs: tuple[float, ...], ys: tuple[float, ...]) -> tuple[float, float]:
    """Least-squares slope and intercept (the trend line of relational tasks)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return slope, my - slope * mx


def curve(amplitude: float, frequency: float, points: int = 60) -> list[tuple[float, float]]:
    """Samples of ``amplitude * sin(frequency * x)`` over [0, 2 pi]."""
    step = 2 * math.pi / (points - 1)
    return [(i * step, amplitude * math.sin(frequency * i * step)) for i in range(points)]
