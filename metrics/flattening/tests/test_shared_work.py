"""The flattening metric's work shared across artifacts (an embedded image's signature once per
content, a match once per pair of hashes, a paste of the source's own bytes sharing the source's
signature) gives every artifact exactly the values it gets with nothing cached."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from PIL import Image
from refig.protocols import Artifact
from refig_metric_flattening import metric as flattening
from refig_toolkit_imaging.locating import shared as locating


def values(artifact: Artifact) -> list[tuple[str, Any, dict[str, Any]]]:
    return [(v.name, v.value, {k: d for k, d in v.detail.items() if k != "seconds"})
            for v in flattening.Flattening().compute(artifact)]


def test_shared_signatures_and_matches_give_the_uncached_values(
    kit: ModuleType, source_png: Path, slides, tmp_path: Path
) -> None:
    figure = Image.open(source_png).convert("RGB")
    w, h = figure.size
    halves = []
    for part in range(2):
        path = tmp_path / f"half{part}.png"
        figure.crop((part * w // 2, 0, (part + 1) * w // 2, h)).save(path)
        halves.append(path)
    artifacts = []
    for name in ("whole", "whole-again", "halves", "halves-again"):
        prs, slide = kit.new_slide()
        if name.startswith("whole"):
            slide.shapes.add_picture(str(source_png), 0, 0, kit.SLIDE_W, kit.SLIDE_H)
        else:
            for part, path in enumerate(halves):
                slide.shapes.add_picture(str(path), part * kit.SLIDE_W // 2, 0,
                                         kit.SLIDE_W // 2, kit.SLIDE_H)
        artifacts.append(kit.inspect(kit.save(prs, slides(name)), source_png))
    alone = []
    for artifact in artifacts:
        locating.forget()
        alone.append(values(artifact))
    locating.forget()
    shared = [values(artifact) for artifact in artifacts]
    assert shared == alone
    assert [dict((n, v) for n, v, _ in a)["pasted_source"] for a in shared] == [1, 1, 1, 1]
    # the halves were signed once each, and matched once each; the source's own bytes never
    # went through image_signature (they share the source's signature)
    info = locating.image_signature.cache_info()
    assert (info.misses, info.hits) == (2, 2)
    assert locating.matches.searches == 3
