"""The task page's difference image: the shift-tolerant test (refig_reporter_html.images) against
the pixel-by-pixel test with a fixed threshold it replaced, timed in the same process on the
same pictures, and how much of a faithful rebuild each marks red.

    uv run python benchmarks/difference_view/run.py [--width 1600] [--repeat 5]

The pictures: a figure of boxes, labels and lines at WIDTH x 2/3 WIDTH, a copy of it drawn two
pixels off (a faithful rebuild), and one with a filled box added (a real difference).
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from refig_reporter_html.images import difference


def figure(path: Path, width: int, shift: int = 0, extra: bool = False) -> Path:
    height = width * 2 // 3
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    step = width // 11
    for i in range(10):
        x, y = step // 2 + i * step + shift, height // 8 + shift
        draw.rectangle((x, y, x + step * 3 // 4, y + height // 4), outline="black", width=3)
        draw.text((x + 8, y + height // 8), f"box {i}", fill="black")
        draw.line((x + step // 3, y + height // 4, x + step // 3, y + height // 2), fill="black",
                  width=2)
    if extra:
        draw.rectangle((width // 4, height * 3 // 4, width * 3 // 4, height * 9 // 10),
                       fill=(20, 40, 200))
    image.save(path)
    return path


def pixelwise(source: Path, render: Path) -> tuple[bytes, float]:
    """The replaced test: grey levels compared pixel by pixel, more than 32 apart is red."""
    ref = Image.open(source).convert("RGB")
    out = Image.open(render).convert("RGB")
    ref = ref.resize(out.size, Image.Resampling.LANCZOS)
    a = np.asarray(ref.convert("L"), dtype=np.int16)
    b = np.asarray(out.convert("L"), dtype=np.int16)
    differs = np.abs(a - b) > 32
    rgb = np.repeat((255 - (255 - b) * 0.35)[:, :, None], 3, axis=2)
    rgb[differs] = (220, 30, 30)
    buffer = io.BytesIO()
    Image.fromarray(rgb.astype(np.uint8), mode="RGB").save(buffer, format="PNG", optimize=True)
    return buffer.getvalue(), float(differs.mean())


def timed(a: Path, b: Path, repeat: int) -> list[tuple[float, float]]:
    """Median CPU seconds of this process (not wall time: the machine is shared) and the red
    share, of the old then the new test, run in turn so both see the same load."""
    seconds: list[list[float]] = [[], []]
    shares = [0.0, 0.0]
    for _ in range(repeat):
        for k, function in enumerate((pixelwise, difference)):
            start = time.process_time()
            found = function(a, b)
            seconds[k].append(time.process_time() - start)
            shares[k] = found[1] if found else float("nan")
    return [(statistics.median(s), share) for s, share in zip(seconds, shares, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        source = figure(root / "source.png", args.width)
        shifted = figure(root / "shifted.png", args.width, shift=2)
        added = figure(root / "added.png", args.width, extra=True)
        print(f"{args.width} x {args.width * 2 // 3} px, median CPU s of {args.repeat}")
        print(f"{'pair':<22}{'test':<16}{'seconds':>9}{'red share':>11}")
        for name, other in (("rebuild 2 px off", shifted), ("a box added", added)):
            (old_s, old_share), (new_s, new_share) = timed(source, other, args.repeat)
            print(f"{name:<22}{'pixelwise, 32':<16}{old_s:>9.3f}{old_share:>11.2%}")
            print(f"{'':<22}{'shift-tolerant':<16}{new_s:>9.3f}{new_share:>11.2%}"
                  f"   ratio {new_s / old_s:.2f}")


if __name__ == "__main__":
    main()
