"""Compare edited.pptx with the source deck: the changed slides side by side in compare/, and the
parts and slide texts that changed.

Usage: python tools/compare_deck.py [SOURCE] [EDITED]   (defaults: source.pptx, edited.pptx)
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

from PIL import Image, ImageChops
from pptx import Presentation
from render_deck import render_all  # this script's own folder is first on sys.path


def changed_parts(before: Path, after: Path) -> tuple[list[str], list[str], list[str]]:
    """Parts added, removed and changed (by bytes) between two packages."""
    with zipfile.ZipFile(before) as old, zipfile.ZipFile(after) as new:
        a, b = set(old.namelist()), set(new.namelist())
        changed = [n for n in sorted(a & b) if old.read(n) != new.read(n)]
    return sorted(b - a), sorted(a - b), changed


def slide_texts(deck: Path) -> list[list[str]]:
    """Each slide's text lines, shapes in order, notes last."""
    texts = []
    for slide in Presentation(str(deck)).slides:
        lines = [line for shape in slide.shapes if shape.has_text_frame
                 for line in shape.text_frame.text.splitlines() if line.strip()]
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            lines += [f"[notes] {line}" for line in
                      slide.notes_slide.notes_text_frame.text.splitlines() if line.strip()]
        texts.append(lines)
    return texts


def side_by_side(left: Path | None, right: Path | None, target: Path, height: int = 540) -> None:
    images = []
    for path in (left, right):
        if path is None:
            images.append(Image.new("RGB", (height * 16 // 9, height), "lightgrey"))
            continue
        with Image.open(path) as image:
            rgb = image.convert("RGB")
            images.append(rgb.resize((max(1, round(rgb.width * height / rgb.height)), height)))
    canvas = Image.new("RGB", (images[0].width + images[1].width + 16, height), "white")
    canvas.paste(images[0], (0, 0))
    canvas.paste(images[1], (images[0].width + 16, 0))
    canvas.save(target)


def differs(a: Path, b: Path) -> bool:
    with Image.open(a) as x, Image.open(b) as y:
        if x.size != y.size:
            return True
        return ImageChops.difference(x.convert("RGB"), y.convert("RGB")).getbbox() is not None


def main() -> int:
    if "--help" in sys.argv:
        print(__doc__)
        return 0
    source = Path(sys.argv[1] if len(sys.argv) > 1 else "source.pptx")
    edited = Path(sys.argv[2] if len(sys.argv) > 2 else "edited.pptx")
    if not edited.is_file():
        print(f"{edited} does not exist yet: run edit_deck.py or apply_patch.py", file=sys.stderr)
        return 1
    added, removed, changed = changed_parts(source, edited)
    for label, names in (("added", added), ("removed", removed), ("changed", changed)):
        print(f"parts {label}: {', '.join(names) or 'none'}")
    before, after = slide_texts(source), slide_texts(edited)
    print(f"slides: {len(before)} before, {len(after)} after")
    for number in range(1, max(len(before), len(after)) + 1):
        old = before[number - 1] if number <= len(before) else []
        new = after[number - 1] if number <= len(after) else []
        gone = [line for line in old if line not in new]
        came = [line for line in new if line not in old]
        if gone or came:
            print(f"slide {number} text: " + "; ".join(
                [f"- {line!r}" for line in gone] + [f"+ {line!r}" for line in came]))
    pages_before = render_all(source, Path("renders/source"))
    pages_after = render_all(edited, Path("renders/edited"))
    for pages in (pages_before, pages_after):
        if isinstance(pages, str):
            print(pages, file=sys.stderr)
            return 1
    folder = Path("compare")
    folder.mkdir(exist_ok=True)
    shown = []
    for number in range(1, max(len(pages_before), len(pages_after)) + 1):
        left = pages_before[number - 1] if number <= len(pages_before) else None
        right = pages_after[number - 1] if number <= len(pages_after) else None
        if left is None or right is None or differs(left, right):
            side_by_side(left, right, folder / f"slide-{number}.png")
            shown.append(number)
    print(f"slides that look different (before left, after right, in compare/): "
          f"{', '.join(map(str, shown)) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
