"""Render slide.pptx, put it beside the source in compare.png, and print refig's scores.

Usage: python tools/compare_slide.py [SLIDE]
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image
from render_slide import refig, render  # this script's own folder is first on sys.path


def side_by_side(source: Path, rendering: Path, target: Path, height: int = 900) -> None:
    """Write ``target``: the source on the left, the rendering on the right, at one height."""
    images = []
    for path in (source, rendering):
        with Image.open(path) as image:
            rgb = image.convert("RGB")
            width = max(1, round(rgb.width * height / rgb.height))
            images.append(rgb.resize((width, height)))
    gap = 16
    canvas = Image.new("RGB", (sum(i.width for i in images) + gap, height), "white")
    canvas.paste(images[0], (0, 0))
    canvas.paste(images[1], (images[0].width + gap, 0))
    canvas.save(target)


def main() -> int:
    slide = Path(sys.argv[1] if len(sys.argv) > 1 else "slide.pptx")
    sources = sorted(Path().glob("source.*"))
    if not sources:
        print("no source.* figure in this directory", file=sys.stderr)
        return 1
    problem = render(slide, Path("render.png"))
    if problem:
        print(problem, file=sys.stderr)
        return 1
    side_by_side(sources[0], Path("render.png"), Path("compare.png"))
    print("wrote compare.png (source left, your slide right)")
    return refig("check", str(slide), "--source", str(sources[0]), "--json", "-q")


if __name__ == "__main__":
    sys.exit(main())
