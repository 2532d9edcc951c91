"""A tiny suite: figures of labelled boxes joined by arrows, with their exact annotation."""

import io
import random
from pathlib import Path

from PIL import Image, ImageDraw
from refig.plugin import Suite, SuiteWriter

WORDS = ["Input", "Encoder", "Decoder", "Loss", "Memory", "Output", "Fusion", "Head"]


def draw_figure(rng: random.Random, width: int = 1200, height: int = 500) -> tuple[bytes, dict]:
    """One figure as PNG bytes and its annotation (nodes with boxes, directed edges)."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    labels = rng.sample(WORDS, rng.randint(2, 4))
    step = width // len(labels)
    nodes = []
    for i, label in enumerate(labels):
        box = [i * step + 40, height // 2 - 50, i * step + step - 40, height // 2 + 50]
        draw.rectangle(box, outline="black", width=3, fill="#dbe9f6")
        draw.text(((box[0] + box[2]) / 2, height / 2), label, fill="black", anchor="mm")
        nodes.append({"id": f"n{i}", "text": label, "box": box})
    edges = []
    for a, b in zip(nodes, nodes[1:], strict=False):
        y = height // 2
        draw.line([a["box"][2], y, b["box"][0], y], fill="black", width=3)
        tip = b["box"][0]
        draw.polygon([(tip, y), (tip - 14, y - 8), (tip - 14, y + 8)], fill="black")
        edges.append({"source": a["id"], "target": b["id"], "style": "solid"})
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue(), {"nodes": nodes, "edges": edges}


def build_suite(out: Path, *, n: int = 3, seed: int = 0) -> Suite:
    """Write ``n`` figures with annotations as a suite in ``out``."""
    rng = random.Random(seed)
    writer = SuiteWriter(out, name="{{ cookiecutter.name }}", family="figure-to-slide",
                         builder="{{ cookiecutter.name }}", params={"n": n, "seed": seed})
    for i in range(n):
        png, annotation = draw_figure(rng)
        writer.add(f"fig-{i:03d}", f"fig-{i:03d}.png", png, annotation=annotation)
    return writer.finish()
