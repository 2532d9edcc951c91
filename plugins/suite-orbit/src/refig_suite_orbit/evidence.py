"""Caption evidence that a figure is a paper's overview, and the gate that demands it.

A figure's score adds the weights of the terms its caption contains (each term once), a small bonus
for overview-like labels and file names and for coming early in the paper, and penalties for terms
of results figures. The gate is strict: the caption itself must carry a strong term (weight 3) and
reach :data:`MIN_CAPTION_SCORE`; names and position alone never admit a figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from refig_suite_orbit.latex import Figure

#: Caption phrases that mark an overview, with their weights.
POSITIVE: dict[str, int] = {
    "overview": 3, "framework": 3, "architecture": 3, "pipeline": 3,
    "illustration of the proposed": 3, "proposed framework": 3, "proposed method": 2,
    "proposed model": 2, "proposed approach": 2, "our method": 2, "our approach": 2,
    "our framework": 2, "our model": 1, "overall": 2, "schematic": 2, "workflow": 2,
    "flowchart": 2, "model structure": 2, "network structure": 2, "system design": 2,
    "method": 1, "diagram": 1, "illustration": 1, "approach": 1, "system": 1, "model": 1,
}
#: Caption phrases of result figures, plots and examples.
NEGATIVE: dict[str, int] = {
    "results": -2, "comparison": -2, "compared": -1, "accuracy": -2, "performance": -2,
    "qualitative": -2, "quantitative": -2, "ablation": -2, "t-sne": -2, "tsne": -2,
    "curve": -2, "curves": -2, "plot": -1, "histogram": -2, "confusion matrix": -2,
    "distribution": -1, "examples of": -1, "visualization": -1, "visualisation": -1,
    "failure cases": -2, "samples": -1, "varying": -1, "versus": -1, "vs.": -1,
}
NAME_HINTS = ("overview", "framework", "arch", "pipeline", "model", "method", "teaser")
STRONG = 3
MIN_CAPTION_SCORE = 3
MIN_WIDTH, MIN_HEIGHT = 400, 150


@dataclass(frozen=True)
class Evidence:
    """Why a figure scored what it did: (term, where, weight) triples and the totals."""

    terms: tuple[tuple[str, str, float], ...]
    caption_score: float
    score: float

    @property
    def strong(self) -> bool:
        return any(where == "caption" and weight >= STRONG for _, where, weight in self.terms)

    @property
    def passes(self) -> bool:
        return self.strong and self.caption_score >= MIN_CAPTION_SCORE

    def as_json(self) -> list[dict[str, object]]:
        return [{"term": t, "where": w, "weight": x} for t, w, x in self.terms]


def _contains(text: str, term: str) -> bool:
    return re.search(r"(?<![a-z])" + re.escape(term) + r"(?![a-z])", text) is not None


def evidence(figure: Figure) -> Evidence:
    """Score one figure by its caption, label, file names and position."""
    caption = figure.caption.casefold()
    terms: list[tuple[str, str, float]] = []
    for table in (POSITIVE, NEGATIVE):
        for term, weight in table.items():
            if _contains(caption, term):
                terms.append((term, "caption", float(weight)))
    caption_score = sum(w for _, _, w in terms)
    names = " ".join([figure.label, *(g.path for g in figure.graphics)]).casefold()
    for hint in NAME_HINTS:
        if hint in names:
            terms.append((hint, "label/file", 1.0))
            break
    if figure.index < 2:
        terms.append((f"figure {figure.index + 1}", "position", 1.0 - 0.5 * figure.index))
    return Evidence(tuple(terms), caption_score, sum(w for _, _, w in terms))


def rank(figures: list[Figure]) -> list[tuple[Figure, Evidence]]:
    """Figures with their evidence, best first (earlier figures win ties)."""
    scored = [(f, evidence(f)) for f in figures]
    return sorted(scored, key=lambda pair: (-pair[1].score, pair[0].index))
