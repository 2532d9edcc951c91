"""A folder in FigCodeBench's released layout, built by the tests (never the real release)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from .programs import REFERENCE

FOLDERS = {"python": ("python", "py"), "matlab": ("Matlab", "m"), "r": ("R", "R"),
           "latex": ("latex", "tex")}


def figure(path: Path, shade: int) -> None:
    image = Image.new("RGB", (320, 240), "white")
    ImageDraw.Draw(image).rectangle((40, 40 + shade, 200, 180), fill=(shade, 90, 200))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)


def build_release(root: Path) -> Path:
    """Two languages' worth of tasks per split and variant, an auxinfo, a data file, a stray
    program without its image."""
    for language, (folder, ext) in FOLDERS.items():
        for split, variant, category, stem in (
                ("exemplary", "base", "Statistical", "0001"),
                ("exemplary", "variant1", "Statistical", "0001"),
                ("user_generated", "base", "Temporal", "u42")):
            code = root / folder / split / f"code_{variant}" / category / f"{stem}.{ext}"
            code.parent.mkdir(parents=True, exist_ok=True)
            code.write_text(REFERENCE[language])
            figure(root / folder / split / f"image_{variant}" / category / f"{stem}.png",
                   len(stem) * 10 + len(variant))
        aux = root / folder / "exemplary" / "code_base" / "Statistical" / "0001_auxinfo.txt"
        aux.write_text("Package dependencies: matplotlib, numpy\nData files: 0001_data.csv\n"
                       "Random seed: 42\nFigure size: 640x480\nNotes: the bars are sorted\n")
        (aux.parent / "0001_data.csv").write_text("label,value\na,1\nb,2\n")
        stray = root / folder / "exemplary" / "code_base" / "Statistical" / f"9999.{ext}"
        stray.write_text(REFERENCE[language])
    return root
