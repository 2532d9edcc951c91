"""A model-free harness: writes and runs a python-pptx program that titles a slide.

It shows the whole harness contract (a program written in the workspace, run until the deadline,
the slide and program reported back) without any model. Every process is started with
``run_command``, never ``subprocess``: it runs the command in the attempt's sandbox (under
bubblewrap only the workspace is writable, no other process is visible, the network is the
attempt's), with the attempt's clean environment (no API keys), ends the whole process tree at the
deadline, and records on the attempt how the process was confined. A bare ``subprocess.run`` would
hand the program refig's environment and everything the user running refig can read.
"""

import sys

from refig.plugin import AttemptContext, ErrorInfo, Harness, HarnessResult
from refig.plugin import run_command

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


class TitleHarness(Harness):
    """Builds a one-slide deck holding the task id as a title."""

    def __init__(self, python: str = sys.executable):
        self.python = python

    def run(self, ctx: AttemptContext) -> HarnessResult:
        program = ctx.workspace / "build_slide.py"
        program.write_text(PROGRAM.format(title=f"Figure {ctx.task.id}"))
        # In an attempt, the program's error output goes where no agent sees it (outputs_dir).
        errors = (ctx.outputs_dir or ctx.workspace) / "program.stderr"
        done = run_command(ctx, [self.python, program.name], stderr=errors, network=False)
        if done.timed_out:
            error = ErrorInfo(kind="timeout", message="program ran past the deadline",
                              retryable=True)
            return HarnessResult(exit_code=None, error=error, outputs={"program": program})
        slide = ctx.workspace / "slide.pptx"
        if done.exit_code != 0 or not slide.is_file():
            message = errors.read_text(errors="replace")[-2000:] if errors.is_file() else ""
            error = ErrorInfo(kind="program_failed", message=message)
            return HarnessResult(exit_code=done.exit_code, error=error,
                                 outputs={"program": program})
        return HarnessResult(exit_code=0, outputs={"slide": slide, "program": program}, turns=1)
