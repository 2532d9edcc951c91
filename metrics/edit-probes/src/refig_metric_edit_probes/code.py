"""The code probes: edit the agent's program as its user would, run it again, check the image.

Each edit is made on the program's text, language-blind, and every edited program runs in one
call of the family's realiser (the ``program`` renderer, in its sandbox, with the task's visible
inputs); its image is compared with the stored rendering of the unedited program, and both are
kept as the probe's ``before`` and ``after`` pictures.

- **string**: OCR reads the figure's text; the longest word (four letters or more) that the
  program writes in a string literal (in LaTeX, anywhere but a command name) and that OCR read
  (letters compared without case or spaces, as OCR may join words) is replaced there by
  :data:`NEW_WORDS`. Passes when OCR reads the new word in the new image. Not applicable when
  OCR reads no word; fails when no word it reads is written by the program (a picture's text
  is no program's).
- **data**: the middle number of the longest literal sequence of numbers (three or more, in
  brackets) becomes half again as large. Passes when at least :data:`MOVED_MIN` pixels of the
  image change and its size does not (a moved mark; a changed canvas size fails). Not
  applicable when the program has no such sequence (its data are in the task's files, or in a
  formula).
- **colour**: the first colour literal (``#RRGGBB``, LaTeX ``{HTML}{RRGGBB}``, a MATLAB
  ``[r g b]`` in 0..1) whose colour shows in at least :data:`COLOUR_MIN` pixels of the image
  becomes magenta. Passes when magenta shows in at least half as many pixels as the old colour
  did. A pixel shows a colour when it is the colour or the colour blended with white
  (:func:`tinted`). Not applicable without such a literal.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from refig.plugin import Renderer, RenderJob, Task
from refig_toolkit_imaging.ocr import read_text

from refig_metric_edit_probes.outcome import Outcome, not_applicable
from refig_metric_edit_probes.pixels import differs

PROBES = ("string", "data", "colour")
NEW_WORDS = ("Harbour", "Lantern")
MAGENTA = (0xE0, 0x21, 0x8A)
#: Pixels a data change must move.
MOVED_MIN = 12
COLOUR_MIN = 50
#: A pixel shows a colour when it lies this close (RGB distance) to the white-to-colour line,
#: at least this share of the way to the colour.
TINT_OFF, TINT_MIN = 24.0, 0.3
_NUM = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
NUMBER = re.compile(_NUM)
SEQUENCE = re.compile(rf"[\[\(\{{]\s*(?:{_NUM}\s*[,;\s]\s*){{2,}}{_NUM}\s*[\]\)\}}]")
HEX = re.compile(r"#([0-9A-Fa-f]{6})\b|\{HTML\}\{([0-9A-Fa-f]{6})\}")
MATLAB_RGB = re.compile(r"\[\s*([01]?\.\d+|[01])\s+([01]?\.\d+|[01])\s+([01]?\.\d+|[01])\s*\]")
#: Longer literals are data (an embedded picture's base64), not text a figure shows.
MAX_LITERAL = 200
QUOTED = re.compile(r"""(['"])((?:(?!\1).)*)\1""")
WORD = re.compile(r"[A-Za-z]{4,}")
#: A program's suffix by the task's ``language`` parameter (the family's program file names).
SUFFIXES = {"python": ".py", "matlab": ".m", "r": ".r", "latex": ".tex"}
#: Roles of the task's inputs a program may read: the figure and its data files.
VISIBLE = ("figure", "data/")


@dataclass(frozen=True)
class Edited:
    """One edited program: its probe, its text and what the check needs."""

    probe: str
    text: str
    evidence: dict[str, Any]


def image(path: Path) -> np.ndarray:
    with Image.open(path) as opened:
        return np.asarray(opened.convert("RGB"))


def new_word(word: str) -> str:
    """A replacement word in the old one's case."""
    new = NEW_WORDS[1] if word.lower() == NEW_WORDS[0].lower() else NEW_WORDS[0]
    return new.upper() if word.isupper() else new.lower() if word.islower() else new


def text_spans(program: str, latex: bool) -> list[tuple[int, int]]:
    """Where a program writes text: its quoted literals, or all of a LaTeX file."""
    if latex:
        return [(0, len(program))]
    return [m.span(2) for m in QUOTED.finditer(program) if len(m.group(2)) <= MAX_LITERAL]


def squeezed(text: str) -> str:
    """Letters only, lower case: how OCR's text and a program's words are compared."""
    return re.sub(r"[^a-z]", "", text.lower())


def string_edit(program: str, read: str, latex: bool) -> Edited | Outcome:
    """Replace the longest word the program writes that OCR read in the figure."""
    seen = squeezed(read)
    found: list[re.Match[str]] = []
    for start, end in text_spans(program, latex):
        for match in WORD.finditer(program, start, end):
            if latex and program[max(0, match.start() - 1)] == "\\":
                continue  # a command name
            if squeezed(match.group(0)) in seen:
                found.append(match)
    if not found:
        return Outcome(
            "string",
            applicable=True,
            passed=False,
            reason="no word the figure shows is written by the program",
            evidence={"read": read[:200]},
        )
    word = max(found, key=lambda m: (len(m.group(0)), -m.start()))
    replacement = new_word(word.group(0))
    text = program[: word.start()] + replacement + program[word.end() :]
    return Edited("string", text, {"old": word.group(0), "new": replacement})


def data_edit(program: str) -> Edited | Outcome:
    """Make the middle number of the longest literal sequence half again as large."""
    sequences = [m for m in SEQUENCE.finditer(program) if not MATLAB_RGB.fullmatch(m.group(0))]
    if not sequences:
        return not_applicable("data", "the program writes no sequence of numbers")
    longest = max(sequences, key=lambda m: (len(NUMBER.findall(m.group(0))), m.start()))
    numbers = list(NUMBER.finditer(program, longest.start(), longest.end()))
    middle = numbers[len(numbers) // 2]
    old = float(middle.group(0))
    new = old * 1.5 if old else 1.0
    written = f"{new:g}" if "." in middle.group(0) or new != int(new) else str(int(new))
    text = program[: middle.start()] + written + program[middle.end() :]
    return Edited(
        "data", text, {"old": middle.group(0), "new": written, "sequence_length": len(numbers)}
    )


def tinted(picture: np.ndarray, colour: tuple[int, int, int]) -> int:
    """Pixels of ``colour`` or of it blended with white (an antialiased thin line's edge): on
    the white-to-colour line within :data:`TINT_OFF`, at least :data:`TINT_MIN` of the way."""
    towards = 255.0 - np.asarray(colour, dtype=np.float64)
    norm = float(towards @ towards)
    if norm < 1.0:
        return 0
    away = 255.0 - picture.reshape(-1, 3).astype(np.float64)
    alpha = away @ towards / norm
    off = np.linalg.norm(away - alpha[:, None] * towards, axis=1)
    return int(((alpha >= TINT_MIN) & (alpha <= 1.2) & (off <= TINT_OFF)).sum())


def colours(program: str, matlab: bool) -> list[tuple[re.Match[str], tuple[int, int, int]]]:
    """The program's colour literals and their RGB, in order."""
    found = []
    for match in HEX.finditer(program):
        value = match.group(1) or match.group(2)
        found.append((match, tuple(int(value[i : i + 2], 16) for i in (0, 2, 4))))
    if matlab:
        for match in MATLAB_RGB.finditer(program):
            found.append((match, tuple(round(float(v) * 255) for v in match.groups())))
    return sorted(found, key=lambda pair: pair[0].start())


def colour_edit(program: str, before: np.ndarray, matlab: bool) -> Edited | Outcome:
    """Turn the first colour literal the image shows to magenta."""
    for match, rgb in colours(program, matlab):
        shown = tinted(before, rgb)
        if shown < COLOUR_MIN or rgb == MAGENTA:
            continue
        literal = match.group(0)
        if literal.startswith("["):
            written = "[" + " ".join(f"{c / 255:.3f}" for c in MAGENTA) + "]"
        else:
            written = literal.replace(match.group(1) or match.group(2), "E0218A")
        text = program[: match.start()] + written + program[match.end() :]
        return Edited(
            "colour", text, {"old": literal, "new": written, "old_pixels": shown, "rgb": list(rgb)}
        )
    return not_applicable("colour", "no colour literal whose colour the figure shows")


def check(edited: Edited, before: np.ndarray, after: np.ndarray) -> tuple[bool, dict[str, Any]]:
    """Whether the image changed as the edit should."""
    if edited.probe == "string":
        read = " ".join(line.text for line in read_text(Image.fromarray(after)))
        return edited.evidence["new"].lower() in read.lower(), {"read": read[:300]}
    if before.shape != after.shape:  # a value that sized the canvas moved no mark
        return False, {"size_changed": [before.shape[:2], after.shape[:2]]}
    if edited.probe == "data":
        moved = int(differs(before, after).sum())
        return moved >= MOVED_MIN, {"changed_pixels": moved}
    now = tinted(after, MAGENTA)
    return now >= edited.evidence["old_pixels"] / 2, {"new_pixels": now}


def program_suffix(path: Path, task: Task | None) -> str:
    """The program's file suffix: from the task's language (a stored program has no suffix),
    else the file's own."""
    language = str(task.params.get("language", "")).lower() if task is not None else ""
    return SUFFIXES.get(language, path.suffix.lower())


def probe_program(
    path: Path,
    rendering: Path,
    task: Task | None,
    references: Mapping[str, Path],
    renderer: Renderer,
) -> list[Outcome]:
    """Every code probe on the program at ``path`` whose stored image is ``rendering``."""
    program = path.read_text("utf-8", errors="replace")
    before = image(rendering)
    suffix = program_suffix(path, task)
    latex, matlab = suffix == ".tex", suffix == ".m"
    read = " ".join(line.text for line in read_text(rendering))
    inputs = {role: p for role, p in references.items() if role.startswith(VISIBLE)}
    made = [
        string_edit(program, read, latex)
        if WORD.search(read)
        else not_applicable("string", "the figure shows no word OCR reads"),
        data_edit(program),
        colour_edit(program, before, matlab),
    ]
    outcomes = [o for o in made if isinstance(o, Outcome)]
    edits = [e for e in made if isinstance(e, Edited)]
    if not edits:
        return outcomes
    with tempfile.TemporaryDirectory(prefix="refig-code-probes-") as tmp:
        jobs = []
        for edited in edits:
            folder = Path(tmp) / edited.probe
            folder.mkdir()
            edited_path = folder / f"figure{suffix}"
            edited_path.write_text(edited.text, "utf-8")
            jobs.append(RenderJob(edited_path, pages="first", task=task, inputs=inputs))
        results = renderer.render(jobs, Path(tmp) / "out")
        for edited, result in zip(edits, results, strict=True):
            outcome = Outcome(edited.probe, applicable=True, evidence=dict(edited.evidence))
            if result.png is None:
                outcome.passed = False
                error = result.error
                outcome.reason = "the edited program gave no image" + (
                    f": {error.kind}: {error.message[:200]}" if error else ""
                )
            else:
                outcome.passed, seen = check(edited, before, image(result.png))
                outcome.evidence |= seen
                outcome.pictures = {"before": rendering.read_bytes(),
                                    "after": result.png.read_bytes()}
            outcomes.append(outcome)
    order = {name: i for i, name in enumerate(PROBES)}
    return sorted(outcomes, key=lambda o: order[o.probe])
