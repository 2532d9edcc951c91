"""How well the flattening metric finds pieces of a source figure, and how often it errs.

For every real figure under ``shared/data/real-figures``: the whole figure, its left half, its
centre quarter and a small (about 6% area) crop are compared with the figure itself (should
match) and with every other figure (should not). Prints detections, false positives, the weakest
correlation and hash distance of the detections, and the time per comparison.

    uv run python benchmarks/paste_detection/run.py [FIGURES_DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PIL import Image
from refig_toolkit_imaging import open_image
from refig_toolkit_imaging.locating.matching import match, signature

DEFAULT = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "real-figures"


def pieces(image: Image.Image) -> dict[str, Image.Image]:
    """The figure and three crops of it, as an agent might paste them."""
    w, h = image.size
    return {
        "whole": image,
        "left half": image.crop((0, 0, w // 2, h)),
        "centre quarter": image.crop((w // 4, h // 4, 3 * w // 4, 3 * h // 4)),
        "small crop": image.crop((w // 3, h // 3, w // 2, 2 * h // 3)),
    }


def main(folder: Path) -> int:
    files = sorted(p for p in folder.glob("*") if p.suffix.lower() in {".png", ".jpg", ".jpeg"})
    if not files:
        print(f"no figures in {folder}")
        return 1
    figures = {p.name: open_image(p) for p in files}  # decoded as the metric decodes a source
    sources = {name: signature(image) for name, image in figures.items()}
    found = missed = false = comparisons = 0
    weakest, farthest = 1.0, 0
    started = time.perf_counter()
    for name, image in figures.items():
        for label, piece in pieces(image).items():
            candidate = signature(piece)
            own = match(candidate, sources[name])
            if own is None:
                missed += 1
                print(f"missed: {name} {label}")
            else:
                found += 1
                weakest = min(weakest, own.ncc if own.ncc is not None else 1.0)
                farthest = max(farthest, own.distance)
            for other in sources:
                if other != name:
                    comparisons += 1
                    if match(candidate, sources[other]) is not None:
                        false += 1
                        print(f"false positive: {name} {label} in {other}")
    seconds = (time.perf_counter() - started) / (found + missed + comparisons)
    print(f"figures: {len(figures)}; pieces found {found} of {found + missed}")
    print(f"false positives: {false} of {comparisons} comparisons with other figures")
    print(f"weakest correlation {weakest:.3f}; largest hash distance {farthest} bits")
    print(f"{seconds:.3f} s per comparison")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT))
