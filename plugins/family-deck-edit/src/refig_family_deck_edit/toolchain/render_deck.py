"""Render every slide of a deck to DIR/slide-N.png, the way refig's evaluator renders it.

Usage: python tools/render_deck.py [DECK] [DIR]   (defaults: edited.pptx, renders)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path


def render_all(deck: Path, folder: Path) -> list[Path] | str:
    """The slides of ``deck`` as PNGs in ``folder``, or an error message."""
    from refig.plugin import RenderJob, make_plugin

    if not deck.is_file():
        return f"{deck} does not exist yet"
    renderer = make_plugin("renderer", "libreoffice")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            [result] = renderer.render([RenderJob(deck.resolve(), pages="all", hidden=True)],
                                       Path(tmp))
            if not result.pages:
                error = result.error
                return f"rendering failed: {error.kind}: {error.message}" if error else "failed"
            pages = []
            for number, page in enumerate(result.pages, 1):
                target = folder / f"slide-{number}.png"
                shutil.copyfile(page, target)
                pages.append(target)
    finally:
        renderer.close()
    return pages


def main() -> int:
    if "--help" in sys.argv:
        print(__doc__)
        return 0
    deck = Path(sys.argv[1] if len(sys.argv) > 1 else "edited.pptx")
    folder = Path(sys.argv[2] if len(sys.argv) > 2 else "renders")
    pages = render_all(deck, folder)
    if isinstance(pages, str):
        print(pages, file=sys.stderr)
        return 1
    print(f"wrote {len(pages)} slides to {folder}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
