"""What both baselines do as agents: report steps, size the slide, write and run the program."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from refig_harness_baseline.files import PROGRAM_FILE, SLIDE_FILE

EMU_PER_INCH = 914_400
#: The slide's long side, as in PowerPoint's 16:9 default (13.333 in); the short side follows the
#: figure's aspect ratio, at least one inch.
LONG_SIDE_EMU = 12_192_000
MIN_SIDE_EMU = EMU_PER_INCH


def emit(step: str, **fields: Any) -> None:
    """One transcript line on stdout."""
    print(json.dumps({"t": round(time.time(), 3), "step": step, **fields}), flush=True)


def slide_size(width_px: int, height_px: int) -> tuple[int, int]:
    """Slide width and height in EMU with the figure's aspect ratio."""
    if width_px >= height_px:
        return LONG_SIDE_EMU, max(MIN_SIDE_EMU, round(LONG_SIDE_EMU * height_px / width_px))
    return max(MIN_SIDE_EMU, round(LONG_SIDE_EMU * width_px / height_px)), LONG_SIDE_EMU


def build(program: str, workspace: Path = Path()) -> int:
    """Write ``build_slide.py`` and run it, as an agent would; return its exit code."""
    path = workspace / PROGRAM_FILE
    path.write_text(program, encoding="utf-8")
    emit("write", file=PROGRAM_FILE, bytes=len(program.encode()))
    done = subprocess.run([sys.executable, PROGRAM_FILE], cwd=workspace, capture_output=True,
                          text=True)
    emit("run", command=f"python {PROGRAM_FILE}", exit_code=done.returncode,
         stderr=done.stderr[-4000:], slide=(workspace / SLIDE_FILE).is_file())
    return done.returncode
