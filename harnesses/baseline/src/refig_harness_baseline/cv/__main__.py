"""Run the cv baseline in a workspace: ``python -m refig_harness_baseline.cv SOURCE``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from refig_harness_baseline.agent import build, emit
from refig_harness_baseline.cv.detect import analyse, summary
from refig_harness_baseline.cv.program import write_program


def main(argv: list[str]) -> int:
    source = Path(argv[0])
    started = time.monotonic()
    emit("read", source=source.name)
    scene = analyse(source)
    emit("detect", width_px=scene.width, height_px=scene.height,
         seconds=round(time.monotonic() - started, 2), **summary(scene))
    return build(write_program(scene, source.name))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
