"""The programs the offline baselines write, in each language.

``blank`` draws nothing on a canvas of the target size. ``smuggle`` reproduces the figure from
its pixels, each language a different way the smuggling detector must catch: Python embeds the
PNG as base64, R and MATLAB write the (downsampled) pixels out as numbers, LaTeX includes the
figure file.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
from refig_family_figure_to_code.languages import Language
from refig_toolkit_imaging import open_image

#: Pixels a side of the arrays R and MATLAB smuggle (enough for a recognisable figure).
SMUGGLE_SIDE = 200


def blank(language: Language, width: int, height: int) -> str:
    """A program that makes an empty white figure of ``width`` x ``height`` pixels."""
    if language is Language.PYTHON:
        return ("import matplotlib.pyplot as plt\n"
                f"fig = plt.figure(figsize=({width / 100:g}, {height / 100:g}), dpi=100)\n")
    if language is Language.R:
        return "plot.new()\n"
    if language is Language.MATLAB:
        return f"figure('Position', [0 0 {width} {height}]);\naxis off;\n"
    return ("\\documentclass{standalone}\n\\usepackage{tikz}\n\\begin{document}\n"
            f"\\begin{{tikzpicture}}\\path[use as bounding box] (0,0) rectangle "
            f"({width * 0.75:g}pt,{height * 0.75:g}pt);\\end{{tikzpicture}}\n\\end{{document}}\n")


def _pixels(figure: Path) -> np.ndarray:
    image = open_image(figure)
    image.thumbnail((SMUGGLE_SIDE, SMUGGLE_SIDE))
    return np.asarray(image)


def smuggle(language: Language, figure: Path, width: int, height: int) -> str:
    """A program that reproduces ``figure`` from its pixels instead of drawing it."""
    if language is Language.PYTHON:
        buffer = io.BytesIO()
        open_image(figure).save(buffer, format="PNG")
        payload = base64.b64encode(buffer.getvalue()).decode("ascii")
        return ("import base64, io\nimport matplotlib.pyplot as plt\n"
                f"DATA = '{payload}'\n"
                "image = plt.imread(io.BytesIO(base64.b64decode(DATA)))\n"
                f"fig = plt.figure(figsize=({width / 100:g}, {height / 100:g}), dpi=100)\n"
                "fig.figimage(image, resize=True)\n")
    if language is Language.LATEX:
        return ("\\documentclass{standalone}\n\\usepackage{graphicx}\n\\begin{document}\n"
                f"\\includegraphics{{{figure.name}}}\n\\end{{document}}\n")
    pixels = _pixels(figure)
    rows, cols, _ = pixels.shape
    # Column-major order, as R's array() and MATLAB's reshape() fill.
    flat = " ".join(str(int(v)) for v in pixels.transpose(2, 1, 0).reshape(-1))
    if language is Language.R:
        values = flat.replace(" ", ", ")
        return (f"px <- array(c({values}) / 255, dim = c({rows}, {cols}, 3))\n"
                "par(mar = c(0, 0, 0, 0), xaxs = 'i', yaxs = 'i')\nplot.new()\n"
                "rasterImage(as.raster(px), 0, 0, 1, 1, interpolate = FALSE)\n")
    return (f"px = uint8(reshape([{flat}], {rows}, {cols}, 3));\n"
            f"figure('Position', [0 0 {width} {height}]);\n"
            "image(px);\naxis off;\nset(gca, 'Position', [0 0 1 1]);\n")


