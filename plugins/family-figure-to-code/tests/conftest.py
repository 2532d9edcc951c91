"""Shared by the family's tests (through the ``kit`` fixture): programs in all four languages,
one per verdict, and a folder in FigCodeBench's released layout built by the tests (never the
real release)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest
from PIL import Image, ImageDraw

REFERENCE = {
    "python": "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9], 'r-')\n"
              "plt.title('Growth')\n",
    "r": "library(ggplot2)\ndf <- data.frame(x = 1:3, y = c(1, 4, 9))\n"
         "ggplot(df, aes(x, y)) + geom_line(colour = 'red') + ggtitle('Growth')\n",
    "matlab": "x = [1 2 3];\nfigure;\nplot(x, x.^2, 'r-');\ntitle('Growth');\n",
    "latex": "\\documentclass[tikz]{standalone}\n\\usepackage{pgfplots}\n"
             "\\pgfplotsset{compat=1.18}\n\\begin{document}\n\\begin{tikzpicture}\n"
             "\\begin{axis}[title=Growth]\n\\addplot[red] coordinates {(1,1) (2,4) (3,9)};\n"
             "\\end{axis}\n\\end{tikzpicture}\n\\end{document}\n",
}

SYNTAX_ERROR = {
    "python": "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3]\n",
    "r": "x <- c(1, 2\nplot(x))\n",
    "matlab": "x = [1 2 3;\nplot(x)\n",
    "latex": "\\documentclass{standalone}\n\\begin{document}\n\\begin{tikzpicture}\n"
             "\\draw (0,0) -- (1,1);\n\\end{document}\n",
}

RUNTIME_ERROR = {
    "python": "import matplotlib.pyplot as plt\nplt.plot(undefined_name)\n",
    "r": "plot(undefined_name)\n",
    "matlab": "plot(undefined_name);\n",
    "latex": "\\documentclass{standalone}\n\\usepackage{pgfplots}\n\\begin{document}\n"
             "\\begin{tikzpicture}\\begin{axis}\\addplot table {missing.dat};\\end{axis}"
             "\\end{tikzpicture}\n\\end{document}\n",
}

LOOP_FOREVER = {
    "python": "while True:\n    pass\n",
    "r": "repeat {}\n",
    "matlab": "while true\nend\n",
    "latex": "\\documentclass{standalone}\n\\def\\loop{\\loop}\n\\begin{document}\\loop"
             "\\end{document}\n",
}

NO_IMAGE = {
    "python": "print('nothing drawn')\n",
    "r": "x <- 1 + 1\n",
    "matlab": "x = 1 + 1;\n",
}

FOLDERS = {"python": ("python", "py"), "matlab": ("Matlab", "m"), "r": ("R", "R"),
           "latex": ("latex", "tex")}


def figure(path: Path, shade: int) -> None:
    image = Image.new("RGB", (320, 240), "white")
    ImageDraw.Draw(image).rectangle((40, 40 + shade, 200, 180), fill=(shade, 90, 200))
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)


def build_release(root: Path) -> Path:
    """Three tasks per language over splits and variants (LaTeX flat, as released), an
    auxinfo, a data file, a stray program without its image."""
    for language, (folder, ext) in FOLDERS.items():
        for split, variant, category, stem in (
                ("exemplary", "base", "Statistical", "0001"),
                ("exemplary", "variant1", "Statistical", "0001"),
                ("user_generated", "base", "Temporal", "u42")):
            place = "" if language == "latex" else category  # the release keeps LaTeX flat
            code = root / folder / split / f"code_{variant}" / place / f"{stem}.{ext}"
            code.parent.mkdir(parents=True, exist_ok=True)
            code.write_text(REFERENCE[language])
            figure(root / folder / split / f"image_{variant}" / place / f"{stem}.png",
                   len(stem) * 10 + len(variant))
        place = "" if language == "latex" else "Statistical"
        aux = root / folder / "exemplary" / "code_base" / place / "0001_auxinfo.txt"
        aux.write_text("Package dependencies: matplotlib, numpy\nData files: 0001_data.csv\n"
                       "Random seed: 42\nFigure size: 640x480\nNotes: the bars are sorted\n")
        (aux.parent / "0001_data.csv").write_text("label,value\na,1\nb,2\n")
        stray = root / folder / "exemplary" / "code_base" / place / f"9999.{ext}"
        stray.write_text(REFERENCE[language])
    return root


@pytest.fixture
def kit() -> ModuleType:
    """This module: the programs and the release builder."""
    return sys.modules[__name__]
