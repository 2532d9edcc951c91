"""``refig report RUN --paper NAME --latex DIR``: a paper's tables and figures, named as in the
paper (``DIR/table2.tex``, ``DIR/figure4.pdf``), a ``DIR/paper.tex`` that holds them all, and one
line naming those the run cannot make and why."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from refig_toolkit_analysis import Analysis, Paper, PaperItem
from refig_toolkit_analysis.papers import Made, NotMade, paper_for, tables_of, unmade_line

from refig_reporter_latex.tex import document, escape, table_tex

FIGURES_FIX = "install refig-reporter-figures (matplotlib) to draw it"


def write_paper(analysis: Analysis, out: Path, options: Mapping[str, Any]) -> tuple[Path, str]:
    """Write the paper ``options["paper"]`` of the run's family into ``out``; return the
    document's path and the line saying what the run cannot make."""
    families = {task.family for task in analysis.data.tasks.values()}
    paper = paper_for(str(options["paper"]), next(iter(families)) if len(families) == 1 else None)
    out.mkdir(parents=True, exist_ok=True)
    blocks: list[str] = []
    unmade: list[NotMade] = []
    for item in paper.items:
        made = _figure(item, analysis, out) if item.figure else tables_of(
            item, analysis.run, options)
        if isinstance(made, NotMade):
            unmade.append(made)
            continue
        if item.figure:
            blocks.append(_figure_float(paper, item))
            continue
        (out / f"{item.name}.tex").write_text(_tables_tex(paper, made), encoding="utf-8")
        blocks.append(f"\\input{{{item.name}}}")
    line = unmade_line(paper, unmade)
    comments = "".join(f"% cannot make {n.item.name}: {n.reason}\n" for n in unmade)
    target = out / "paper.tex"
    target.write_text(
        document(f"{paper.title}: tables and figures of {analysis.run.name}", [],
                 body=comments + "\n".join(blocks) + ("\n" if blocks else "")),
        encoding="utf-8")
    return target, line


def _label(paper: Paper, item: PaperItem, part: int = 0) -> str:
    return f"{'fig' if item.figure else 'tab'}:{paper.name}-{item.name}" + (
        f"-{part + 1}" if part else "")


def _tables_tex(paper: Paper, made: Made) -> str:
    """The item's tables: one float each, captioned with the paper's caption (and the part's
    heading when the paper's table has several)."""
    floats = []
    for index, (heading, table) in enumerate(made.tables):
        caption = made.item.caption + (f" ({heading})" if heading else "")
        floats.append(table_tex(table, caption=caption, label=_label(paper, made.item, index)))
    return "\n".join(floats)


def _figure(item: PaperItem, analysis: Analysis, out: Path) -> Made | NotMade:
    """Draw the item's figure into ``out/<name>.pdf`` with refig-reporter-figures."""
    try:
        from refig_reporter_figures.plots import FIGURES, Skipped
    except ImportError:
        return NotMade(item, f"its figure needs matplotlib: {FIGURES_FIX}")
    draw = FIGURES.get(str(item.figure))
    if draw is None:
        return NotMade(item, f"refig-reporter-figures draws no {item.figure} figure")
    with tempfile.TemporaryDirectory() as scratch:
        drawn = draw(analysis, Path(scratch))
        if isinstance(drawn, Skipped):
            return NotMade(item, drawn.reason)
        shutil.copyfile(drawn.pdf, out / f"{item.name}.pdf")
    return Made(item)


def _figure_float(paper: Paper, item: PaperItem) -> str:
    return (
        "\\begin{figure}[t]\n\\centering\n"
        f"\\includegraphics[width=\\linewidth]{{{item.name}.pdf}}\n"
        f"\\caption{{{escape(item.caption)}.}}\n\\label{{{_label(paper, item)}}}\n\\end{{figure}}"
    )
