"""What an expert rating a deck edit is shown: the instruction and style target, then every
slide as original, target and edited renderings side by side, the selected slides first."""

from __future__ import annotations

from refig.plugin import Artifact
from refig_toolkit_analysis import RatingPage, RatingView

from refig_family_deck_edit.cases import style_target
from refig_family_deck_edit.context import ContextError, DeckContext, artifact_context
from refig_family_deck_edit.judges.evidence import header, selected, slide_images
from refig_family_deck_edit.matching import match_slides
from refig_family_deck_edit.references import RenderError
from refig_family_deck_edit.selection import SelectedSlide

ROLES = ("original", "target", "prediction")


def _title(slide: SelectedSlide) -> str:
    numbers = [f"{role} {n}" for role, n in zip(("original", "target", "edited"),
                                                (slide.original, slide.target, slide.prediction),
                                                strict=True) if n is not None]
    return "slide: " + ", ".join(numbers)


def _every_slide(context: DeckContext) -> list[SelectedSlide]:
    """Each original slide with its target and edited counterparts, then slides the edit added."""
    to_target = {p.before.index: p.after for p in match_slides(context.original, context.target)
                 if p.before is not None}
    slides = []
    for pair in match_slides(context.original, context.prediction):
        if pair.before is None:
            slides.append(SelectedSlide(None, None, pair.after.index if pair.after else None))
            continue
        target = to_target.get(pair.before.index)
        slides.append(SelectedSlide(pair.before.index, target.index if target else None,
                                    pair.after.index if pair.after else None))
    return slides


def rating_page(artifact: Artifact) -> RatingPage:
    """Selected slides (marked) first, then every other slide, so each one is reachable."""
    instruction = (artifact.task.instruction if artifact.task else None) or ""
    brief = header(instruction, style_target(artifact.references))
    try:
        context = artifact_context(artifact)
    except (ContextError, RenderError, OSError, ValueError):
        edited = tuple((f"edited slide {k}", page) for k, page in enumerate(artifact.pages, 1))
        return RatingPage(brief, (RatingView("edited deck (no comparison)", edited, True),))
    chosen = selected(context)
    keys = {(s.original, s.target, s.prediction) for s in chosen}
    views = [RatingView(_title(s), slide_images(context, (s,), ROLES), True) for s in chosen]
    views += [RatingView(_title(s), slide_images(context, (s,), ROLES))
              for s in _every_slide(context) if (s.original, s.target, s.prediction) not in keys]
    return RatingPage(brief, tuple(views))
