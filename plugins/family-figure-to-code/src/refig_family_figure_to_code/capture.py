"""Capture protocols: how a suite says its programs become images.

A figure-to-code task names its protocol in ``params.capture``; the reference program and
every agent's program are captured the same way, so a model's image is made exactly as the
ground truth's was.

* ``refig`` (the default; ``code-sample``): the figure is drawn at the task's pixel size at
  100 dpi; an image the program saved itself is preferred to the figure left open; LaTeX's
  first PDF page at the task's width.
* ``figcodebench``: the conventions of FigCodeBench's ``figure_generation/generating_*.py``.
  Python: ``plt.show(...)`` and ``plt.savefig(...)`` removed by the release's regular
  expressions, ``import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt``
  prepended, ``plt.savefig(OUT, dpi=300, bbox_inches='tight', facecolor='white',
  transparent=False)`` and ``plt.close('all')`` appended. R: ``png(OUT, width=8, height=6,
  units='in', res=300); source(PROG, print.eval=TRUE); dev.off()``. MATLAB: MATLAB's
  ``exportgraphics(gcf, OUT, 'Resolution', 300)`` when MATLAB is installed; under Octave
  (no ``exportgraphics``) ``print -dpng -r300`` and the white margin cropped as
  ``exportgraphics`` crops it (:func:`crop_margin`). LaTeX: ``xelatex``, the first PDF page at
  300 dpi. Only that image counts: a file the program saved itself is not the figure. Unlike
  the release's scripts, nothing is installed and nothing reaches the network.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageChops

REFIG = "refig"
FIGCODEBENCH = "figcodebench"
PROTOCOLS = (REFIG, FIGCODEBENCH)
#: The release's resolution for every language.
FIGCODEBENCH_DPI = 300
#: The release's expressions: a call up to its first closing parenthesis, on one line.
_SHOW = re.compile(r"plt\.show\s*\(.*?\)")
_SAVEFIG = re.compile(r"plt\.savefig\s*\(.*?\)")


def protocol_of(params: Mapping[str, Any] | None) -> str:
    """The capture protocol a task's params name (``refig`` when they name none)."""
    name = str((params or {}).get("capture") or REFIG)
    if name not in PROTOCOLS:
        raise ValueError(f"unknown capture protocol {name!r}: one of {', '.join(PROTOCOLS)}")
    return name


def figcodebench_python(source: str, out: str) -> str:
    """``source`` as the release's Python script runs it, saving its figure to ``out``."""
    body = _SAVEFIG.sub("", _SHOW.sub("", source))
    return ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n\n"
            f"{body}\n\nplt.savefig({out!r}, dpi={FIGCODEBENCH_DPI}, bbox_inches='tight', "
            "facecolor='white', transparent=False)\nplt.close('all')\n")


def crop_margin(image: Image.Image) -> Image.Image:
    """``image`` without its white margin: the bounding box of every pixel that is not pure
    white, as ``exportgraphics`` crops (an all-white image is kept whole)."""
    rgb = image.convert("RGB")
    box = ImageChops.difference(rgb, Image.new("RGB", rgb.size, "white")).getbbox()
    return rgb if box is None else rgb.crop(box)
