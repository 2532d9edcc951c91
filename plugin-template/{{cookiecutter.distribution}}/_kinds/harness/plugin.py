"""A model-free harness: writes and runs a python-pptx program that titles a slide.

It shows the whole harness contract (a program written in the workspace, run as a subprocess
that must end by the deadline, the slide and program reported back) without any model.
"""

import subprocess
import sys
import time

from refig.plugin import AttemptContext, ErrorInfo, HarnessResult

PROGRAM = '''\
from pptx import Presentation
from pptx.util import Inches, Pt

deck = Presentation()
deck.slide_width, deck.slide_height = Inches(13.333), Inches(7.5)
slide = deck.slides.add_slide(deck.slide_layouts[6])
box = slide.shapes.add_textbox(Inches(1), Inches(3), Inches(11), Inches(1.5))
box.text_frame.text = {title!r}
box.text_frame.paragraphs[0].runs[0].font.size = Pt(40)
deck.save("slide.pptx")
'''


class TitleHarness:
    """Builds a one-slide deck holding the task id as a title."""

    def __init__(self, python: str = sys.executable):
        self.python = python

    def run(self, ctx: AttemptContext) -> HarnessResult:
        program = ctx.workspace / "build_slide.py"
        program.write_text(PROGRAM.format(title=f"Figure {ctx.task.id}"))
        budget = max(0.0, ctx.deadline - time.monotonic())
        try:
            done = subprocess.run([self.python, program.name], cwd=ctx.workspace,
                                  capture_output=True, text=True, timeout=budget)
        except subprocess.TimeoutExpired:
            error = ErrorInfo(kind="timeout", message="program ran past the deadline",
                              retryable=True)
            return HarnessResult(exit_code=None, error=error, program=program)
        slide = ctx.workspace / "slide.pptx"
        if done.returncode != 0 or not slide.is_file():
            error = ErrorInfo(kind="program_failed", message=done.stderr[-2000:])
            return HarnessResult(exit_code=done.returncode, error=error, program=program)
        return HarnessResult(exit_code=0, slide=slide, program=program, turns=1)
