"""What each deck-edit judge call is shown, by evidence mode (the paper's judge ablation).

- ``dual`` (default): an IF call sees the instruction, the style target and the structural diffs;
  the VQ call sees the instruction, the style target and the renderings of every selected slide
  (target beside edited), split over several calls only for a judge with a stated image limit.
- ``dual-nodiff``: as ``dual``, but the IF call sees renderings (original, target, edited) of the
  selected slides instead of the structural diffs.
- ``single``: one call with every signal (diffs and renderings) scores both axes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from refig_family_deck_edit.compare import readable
from refig_family_deck_edit.context import DeckContext
from refig_family_deck_edit.selection import SelectedSlide

Mode = Literal["dual", "dual-nodiff", "single"]
MODES: tuple[str, ...] = ("dual", "dual-nodiff", "single")


@dataclass(frozen=True)
class CallEvidence:
    """One call's text and labelled images."""

    text: str
    images: tuple[tuple[str, Path], ...] = ()


def _page(pages: tuple[Path, ...], number: int | None) -> Path | None:
    return pages[number - 1] if number is not None and 0 < number <= len(pages) else None


def slide_images(context: DeckContext, slides: tuple[SelectedSlide, ...],
                 roles: tuple[str, ...]) -> tuple[tuple[str, Path], ...]:
    """``original slide 3``, ``target slide 3``, ``edited slide 3`` images, in slide order."""
    names = {"original": "original", "target": "target", "prediction": "edited"}
    images = []
    for slide in slides:
        for role in roles:
            number = {"original": slide.original, "target": slide.target,
                      "prediction": slide.prediction}[role]
            page = _page(context.pages.get(role, ()), number)
            if page is not None:
                images.append((f"{names[role]} slide {number}", page))
    return tuple(images)


def header(instruction: str, style_target: str) -> str:
    return (f"Instruction given to the agent:\n{instruction}\n\n"
            f"Style target (the constraints the result must meet):\n{style_target or '(none)'}")


def selected(context: DeckContext) -> tuple[SelectedSlide, ...]:
    return context.selection.slides if context.selection else ()


def if_evidence(context: DeckContext, instruction: str, style_target: str,
                mode: Mode) -> CallEvidence:
    """The IF call's evidence."""
    text = header(instruction, style_target)
    if mode == "dual-nodiff":
        images = slide_images(context, selected(context), ("original", "target", "prediction"))
        return CallEvidence(text + "\n\nRenderings of the slides that changed follow.", images)
    return CallEvidence(text + "\n\nStructural diffs, read from the decks' XML:\n"
                        + readable(context.comparison))


def vq_parts(context: DeckContext, instruction: str, style_target: str,
             per_call: int | None = None) -> list[tuple[CallEvidence, int]]:
    """The VQ evidence: every selected slide (target, then edited) in one call, with its slide
    count. Only when ``per_call`` (slides a call may show) is below the selection's size is it
    split, into the fewest calls, their sizes differing by at most one slide."""
    slides = selected(context)
    text = header(instruction, style_target) + (
        "\n\nRenderings of the slides that changed follow: each target slide, then the same "
        "slide of the edited deck. Judge the edited deck's visual quality.")
    if not slides:
        return [(CallEvidence(text + "\n(No slide differs from the original.)"), 0)]
    calls = 1 if per_call is None else -(-len(slides) // per_call)
    size, extra = divmod(len(slides), calls)
    parts, start = [], 0
    for k in range(calls):
        end = start + size + (1 if k < extra else 0)
        images = slide_images(context, slides[start:end], ("target", "prediction"))
        parts.append((CallEvidence(text, images), end - start))
        start = end
    return parts


def single_evidence(context: DeckContext, instruction: str, style_target: str) -> CallEvidence:
    """Everything in one call."""
    images = slide_images(context, selected(context), ("original", "target", "prediction"))
    return CallEvidence(
        header(instruction, style_target) + "\n\nStructural diffs, read from the decks' XML:\n"
        + readable(context.comparison) + "\n\nRenderings of the slides that changed follow.",
        images)
