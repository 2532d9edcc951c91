"""Every generated edit, by name, and the multi-label combinations of two."""

from __future__ import annotations

import random
from collections.abc import Callable

from pptx.presentation import Presentation

from refig_family_deck_edit.sample import edits_content as content
from refig_family_deck_edit.sample import edits_media as media
from refig_family_deck_edit.sample import edits_style as style
from refig_family_deck_edit.sample.deck import Plan
from refig_family_deck_edit.sample.edit import Edit

Recipe = Callable[[Presentation, Plan, random.Random], Edit]

#: The first five cover the five categories (Content, Layout, Styling, Interactivity,
#: Structure), so a suite of five (as ``refig demo`` builds) spans PPTArena's taxonomy.
SINGLE: dict[str, Recipe] = {
    "table-cell": content.table_cell,
    "align-steps": style.align_steps,
    "theme-accent": style.theme_accent,
    "fade-transitions": style.fade_transitions,
    "notes-then-delete-staging": content.notes_then_delete_staging,
    "translate-titles": content.translate_titles,
    "chart-value": content.chart_value,
    "footers": content.footers,
    "alt-text": content.alt_text,
    "contact-link": content.contact_link,
    "normalise-subtitles": style.normalise_subtitles,
    "heading-font": style.heading_font,
    "title-background": style.title_background,
    "recolour-steps": style.recolour_steps,
    "bring-to-front": style.bring_to_front,
    "match-logos": style.match_logos,
    "closing-layout": style.closing_layout,
    "appear-steps": style.appear_steps,
    "rename-stage": media.rename_stage,
    "trim-video": media.trim_video,
    "remove-video": media.remove_video,
}

#: Multi-label cases (PPTArena's cases carry several labels): two edits in one instruction.
COMBINED: tuple[tuple[str, str], ...] = (
    ("translate-titles", "footers"),
    ("align-steps", "recolour-steps"),
    ("table-cell", "chart-value"),
    ("theme-accent", "title-background"),
)

NAMES: tuple[str, ...] = (*SINGLE, *(f"{a}+{b}" for a, b in COMBINED))


def apply(name: str, prs: Presentation, plan: Plan, rng: random.Random) -> Edit:
    """Apply the recipe ``name`` (``a+b`` for a combination) to ``prs``."""
    first, _, second = name.partition("+")
    edit = SINGLE[first](prs, plan, rng)
    return edit.then(SINGLE[second](prs, plan, rng)) if second else edit
