"""Render slide.pptx to render.png, the way refig's evaluator renders it.

Usage: python tools/render_slide.py [SLIDE] [PNG]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def refig(*args: str) -> int:
    """Run the ``refig`` command of this Python environment (found even when not on PATH)."""
    beside = Path(sys.executable).parent / "refig"
    command = str(beside) if beside.exists() else shutil.which("refig") or "refig"
    try:
        return subprocess.call([command, *args])
    except FileNotFoundError:
        print("the refig command is not installed here", file=sys.stderr)
        return 127


def render(slide: Path, target: Path) -> str | None:
    """Render ``slide`` to ``target``; return an error message, or None when it worked."""
    from refig.plugin import RenderJob, make_plugin

    if not slide.is_file():
        return f"{slide} does not exist yet: run `python build_slide.py` first"
    renderer = make_plugin("renderer", "libreoffice")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # hidden=True: as the evaluation renders it (the gate renders a hidden only slide)
            [result] = renderer.render([RenderJob(slide.resolve(), hidden=True)], Path(tmp))
            if result.png is None:
                error = result.error
                return f"rendering failed: {error.kind}: {error.message}" if error else "failed"
            shutil.copyfile(result.png, target)
    finally:
        renderer.close()
    return None


def main() -> int:
    slide = Path(sys.argv[1] if len(sys.argv) > 1 else "slide.pptx")
    target = Path(sys.argv[2] if len(sys.argv) > 2 else "render.png")
    problem = render(slide, target)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
