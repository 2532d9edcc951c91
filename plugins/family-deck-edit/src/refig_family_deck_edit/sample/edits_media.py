"""Edits of a deck's SmartArt diagram and video: a diagram node renamed, a video trimmed, a video
removed (PPTArena's SmartArt and audio/video operation types)."""

from __future__ import annotations

import hashlib
import random

from refig_family_deck_edit.sample.deck import Plan
from refig_family_deck_edit.sample.edit import Edit
from refig_family_deck_edit.sample.edits_content import shape_named
from refig_family_deck_edit.sample.embedded import (
    VIDEO,
    remove_media,
    rename_smartart_node,
    trim_media,
)
from refig_family_deck_edit.sample.words import RENAMED_STAGES


def rename_stage(prs, plan: Plan, rng: random.Random) -> Edit:
    old = rng.choice(plan.roadmap)
    new = rng.choice(RENAMED_STAGES)
    rename_smartart_node(prs.slides[plan.diagram - 1], "Roadmap diagram", old, new)
    nodes = [new if stage == old else stage for stage in plan.roadmap]
    edit = Edit(
        instruction=f"In the roadmap diagram (SmartArt) on the 'Roadmap' slide, rename the "
                    f"stage '{old}' to '{new}'.",
        style_target="The diagram keeps its stages, their order and its layout; only that "
                     "stage's text changes.",
        categories=("Content",), operations=("smartart",))
    edit.want(plan.diagram, "Roadmap diagram", "smartart", nodes)
    return edit


def trim_video(prs, plan: Plan, rng: random.Random) -> Edit:
    seconds = rng.randint(2, 9)
    video = shape_named(prs.slides[plan.video - 1], "Launch video")
    trim_media(video, seconds * 1000)
    edit = Edit(
        instruction=f"Trim the launch video on the 'Launch film' slide so that playback skips "
                    f"its first {seconds} seconds.",
        style_target="The same video and poster frame, trimmed at the start only.",
        categories=("Interactivity",), operations=("audio_video",))
    edit.want(plan.video, "Launch video", "media", {
        "kind": "video", "sha256": hashlib.sha256(VIDEO).hexdigest(), "link": None,
        "trim_start_ms": seconds * 1000, "trim_end_ms": None})
    return edit


def remove_video(prs, plan: Plan, rng: random.Random) -> Edit:
    slide = prs.slides[plan.video - 1]
    remove_media(slide, shape_named(slide, "Launch video"))
    edit = Edit(
        instruction="The launch video is out of date: remove it from the 'Launch film' slide, "
                    "keeping the slide and its title.",
        style_target="No media object is left on that slide; every other slide is unchanged.",
        categories=("Structure",), operations=("audio_video",))
    edit.want(plan.video, "Launch video", "object", None)
    return edit
