"""List the native objects of slide.pptx, as refig's evaluator reads them (`refig check`).

Usage: python tools/inspect_slide.py [SLIDE] [--json]
"""

from __future__ import annotations

import sys

from render_slide import refig  # this script's own folder is first on sys.path


def main() -> int:
    args = sys.argv[1:]
    slide = next((a for a in args if not a.startswith("-")), "slide.pptx")
    flags = [a for a in args if a.startswith("-")]
    return refig("check", slide, *flags)


if __name__ == "__main__":
    sys.exit(main())
