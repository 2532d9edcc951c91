"""What the render stage costs in this process, beside LibreOffice: PDFium drawing the page, the
PNG encoding, the rest; and the PNG encoders compared on the very slides rendered.

    uv run python benchmarks/full_pass/render_share.py [--slides 30] [--rounds 3]

The stage is the evaluation's own ``RenderBatch`` over fresh slides in one worker, its offices
warm (a first batch starts them). This process's CPU (``time.process_time``: LibreOffice runs in
child processes and is not in it) is measured ``--rounds`` times without a profiler; one more
round under cProfile (timing CPU) splits it by function. The encoders: Pillow at zlib level 1
(its adaptive filter per row, what the renderer used before) against OpenCV's libpng at level 1
with the ``up`` filter for every row (what it uses now), on the pixels of each slide's PNG, with
their sizes and Pillow's decoding time, and a check that every PNG decodes to the same pixels.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image
from refig.engine.plugins import close_plugins
from refig.engine.stages import Item, RenderBatch
from refig_toolkit_imaging import bgr_png_bytes
from run import fresh_slides

#: The functions of the pieces, as cProfile names them (a built-in's name holds the last).
PIECES = {"pdfium_draw": "_drawn_into", "png_encode": "imencode", "pdfium_load_page": "get_page",
          "slide_aspect": "slide_aspect"}


def split(profile: cProfile.Profile) -> dict[str, float]:
    """Total seconds spent in each of :data:`PIECES`' functions (their own time)."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    found = dict.fromkeys(PIECES, 0.0)
    for (_, _, name), (_, _, own, cumulative, _) in stats.items():
        for piece, function in PIECES.items():
            if name == function or name == f"<{function}>":
                found[piece] += cumulative if piece == "slide_aspect" else own
    return found


def encoders(pngs: list[bytes]) -> dict[str, dict[str, float]]:
    """Each encoder's CPU ms, kB and Pillow decoding ms per slide; the pixels must survive.
    Each gets the pixels as the renderer would hand them over (OpenCV: PDFium's BGR)."""
    images = [Image.open(io.BytesIO(data)).convert("RGB") for data in pngs]
    bgr = [np.ascontiguousarray(np.asarray(image)[:, :, ::-1]) for image in images]

    def pillow(image: Image.Image) -> bytes:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=1)
        return buffer.getvalue()

    rows = {}
    for name, encode, inputs in (("pillow_level1_adaptive", pillow, images),
                                 ("opencv_level1_up", bgr_png_bytes, bgr)):
        started = time.process_time()
        outs = [encode(pixels) for pixels in inputs]
        encode_cpu = (time.process_time() - started) / len(outs)
        started = time.process_time()
        decoded = [Image.open(io.BytesIO(data)) for data in outs]
        for image in decoded:
            image.load()
        decode_cpu = (time.process_time() - started) / len(outs)
        same = all(a.mode == "RGB" and a.tobytes() == b.tobytes()
                   for a, b in zip(decoded, images, strict=True))
        rows[name] = {"encode_ms": 1e3 * encode_cpu, "decode_ms": 1e3 * decode_cpu,
                      "kilobytes": sum(map(len, outs)) / len(outs) / 1e3, "same_pixels": same}
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slides", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="refig-bench-share-") as tmp:
        files = fresh_slides(Path(tmp), args.slides, seed=3)
        items = [Item(str(index), str(path)) for index, path in enumerate(files)]
        batch = RenderBatch("libreoffice")
        batch(items[:2])  # the office starts
        own = []
        for _ in range(args.rounds):
            started = time.process_time()
            rendered = batch(items)
            own.append((time.process_time() - started) / len(items))
        profile = cProfile.Profile(time.process_time)  # CPU, not wall: LibreOffice competes
        profile.runcall(batch, items)
        pieces = {piece: seconds / len(items) for piece, seconds in split(profile).items()}
        close_plugins()
    pngs = [r.pngs[0] for r in rendered if r.pngs]
    print(json.dumps({
        "slides": len(items), "load_before": load_before, "load_after": os.getloadavg(),
        "own_cpu_seconds_per_slide": statistics.median(own), "rounds": own,
        "profiled_seconds_per_slide": pieces, "encoders": encoders(pngs),
    }, indent=2))


if __name__ == "__main__":
    main()
