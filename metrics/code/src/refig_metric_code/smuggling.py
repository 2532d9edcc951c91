"""Raster smuggling: a program that reproduces the figure by loading or embedding pixels.

The code counterpart of the slide family's flattening cap. A program is flagged when any of
these holds, each named in the finding:

* ``reads_image``: it calls an image reader or includes an image file (``imread``,
  ``Image.open``, ``readPNG``, ``image_read``, ``\\includegraphics``, ``\\addplot graphics``...);
* ``names_figure``: it names the task's figure file (``figure.png``) at all;
* ``embedded_payload``: it holds a data URI or a base64 run of at least 256 characters;
* ``pixel_array``: it holds at least ``PIXEL_NUMBERS`` numeric literals that make up at least
  30 % of its tokens (an image written out as numbers);
* ``copies_input``: its image copies a visible input, byte for byte or nearly, however the
  file's name was built: the realiser ran it again with that input replaced by a decoy and its
  image became the decoy (the page's PNG text chunk ``refig:copied-input`` names the input).

An image equal to the figure is no evidence by itself: the reference program, re-run by a
deterministic toolchain, reproduces its figure to the pixel (and draws it again, decoy or not).

Drawing calls that show arrays (``imshow``, ``imagesc``, ``geom_raster``) are not flagged alone:
heatmaps are legitimate. Judges cap a flagged program's total at 0 (the rubric's cap); FCF,
defined without smuggling, does not see it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pygments.token import Number

from refig_metric_code.languages import Language
from refig_metric_code.tokens import code_tokens, latex_literals, lexer

#: The PNG text chunk in which the figure-to-code realiser names the input an image copies.
COPIED_INPUT_KEY = "refig:copied-input"
PIXEL_NUMBERS = 4096
BASE64_RUN = 256

_READERS: dict[Language, re.Pattern[str]] = {
    Language.PYTHON: re.compile(
        r"\b(?:imread|imread_collection|Image\s*\.\s*open|iio\s*\.\s*v3\s*\.\s*imread|"
        r"read_image|load_img|OffsetImage|figimage|b64decode|frombytes|open_image)\b"),
    Language.MATLAB: re.compile(r"\b(?:imread|imfinfo|webread|urlread|matlab\.net|"
                                r"base64decode|matlab\.internal)\b"),
    Language.R: re.compile(r"\b(?:readPNG|readJPEG|readTIFF|image_read|load\.image|"
                           r"readbitmap|read\.bitmap|rasterGrob|annotation_raster|"
                           r"base64decode|base64_dec)\b"),
    Language.LATEX: re.compile(r"\\(?:includegraphics|pgfimage|pgfdeclareimage|"
                               r"pgfuseimage)\b|\baddplot\s*(?:\[[^\]]*\])?\s*graphics\b"),
}
_DATA_URI = re.compile(r"data:image/[a-z+]+;base64,", re.I)
_BASE64 = re.compile(rf"[A-Za-z0-9+/]{{{BASE64_RUN},}}={{0,2}}")


@dataclass(frozen=True)
class Finding:
    """Whether a program smuggles a raster, and every reason that says so."""

    reasons: tuple[str, ...]
    numeric_literals: int

    @property
    def flagged(self) -> bool:
        return bool(self.reasons)


def numeric_literals(source: str, language: Language) -> int:
    """How many number literals ``source`` holds (Pygments' number tokens; LaTeX's by pattern,
    its lexer having none)."""
    if language is Language.LATEX:
        return sum(latex_literals(source)[1].values())
    return sum(1 for kind, _ in lexer(language).get_tokens(source) if kind in Number)


def detect(source: str, language: Language | str, *, figure_names: tuple[str, ...] = (),
           copied_input: str | None = None) -> Finding:
    """The :class:`Finding` for ``source``; ``figure_names`` are the task figure's file names,
    ``copied_input`` the visible input its execution copied (when it did)."""
    language = Language.parse(str(language))
    reasons: list[str] = ["copies_input"] if copied_input else []
    if _READERS[language].search(source):
        reasons.append("reads_image")
    if any(name and name in source for name in figure_names):
        reasons.append("names_figure")
    if _DATA_URI.search(source) or _BASE64.search(source):
        reasons.append("embedded_payload")
    numbers = numeric_literals(source, language)
    if numbers >= PIXEL_NUMBERS and numbers >= 0.3 * max(1, len(code_tokens(source, language))):
        reasons.append("pixel_array")
    return Finding(tuple(reasons), numbers)
