"""A workflow that gives the agent a checklist to work through before it finishes."""

from pathlib import Path

from refig.plugin import Prompt, Task, Workflow

CHECKLIST = """\
- Every label of the figure is a native text box or shape text.
- Every arrow is a connector bound to the shapes it joins.
- Regions that group boxes are shapes behind them, not pictures.
- The slide has exactly one slide and no pasted image of the figure.
"""

PROMPT = (
    "Rebuild the figure {source} as a single-slide PowerPoint file slide.pptx, written by a "
    "python-pptx program build_slide.py. Before you finish, check every item of CHECKLIST.md."
)


class ChecklistWorkflow(Workflow):
    """Writes ``CHECKLIST.md`` into the workspace and points the prompt at it."""

    version = "1"

    def prepare(self, workspace: Path, task: Task, harness: str) -> Prompt:
        (workspace / "CHECKLIST.md").write_text(CHECKLIST)
        return Prompt(text=PROMPT.format(source=Path(task.input("figure").path).name),
                      files=("CHECKLIST.md",), version=self.version)
