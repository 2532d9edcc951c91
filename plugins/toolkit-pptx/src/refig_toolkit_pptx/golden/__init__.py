"""The golden deck the slide families' canary renders (``slides.pptx``, one hard case of slide
rendering per slide) and, in ``expected/``, its LibreOffice renderings and the environment that
made them (written by ``refig canary --update``)."""

from __future__ import annotations

from pathlib import Path

#: The folder of the golden deck and its expected results.
FOLDER = Path(__file__).parent
DECK = "slides.pptx"
#: What the deck holds, one slide each.
CASES = ("CJK and Latin text (Calibri, Cambria, Noto Sans CJK); glued straight, elbow and "
         "curved connectors; gradient fills; a rotated, nested group")
#: The font families it needs: the metric-compatible ones and the CJK face.
FONTS = ("Carlito", "Caladea", "Noto Sans CJK")
#: The width of its renderings in pixels (small enough to commit).
WIDTH = 640
