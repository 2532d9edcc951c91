"""Rendering an analysis as rich tables in the terminal."""

from __future__ import annotations

from refig.plugin import print_table
from refig_toolkit_analysis import Analysis, Table
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

BEST_MARK = "*"


def _naming_columns(table: Table) -> int:
    """The first column, and the second too when it is text (language, then configuration)."""
    kinds = [c.kind for c in table.columns[:3]]
    return 2 if len(kinds) == 3 and kinds[:2] == ["text", "text"] else 1


def render_table(table: Table) -> RichTable | Text:
    """One table as rich renders it; a sentence when the data are too few."""
    if table.empty:
        head, _, reason = table.empty_sentence.partition(": ")
        return Text.assemble((table.title, "bold"), (f"\n  {head.lower()}: ", "yellow"), reason)
    rich = RichTable(
        title=table.title, title_justify="left", title_style="bold", caption_justify="left"
    )
    naming = _naming_columns(table)
    for k, column in enumerate(table.columns):
        numeric = column.kind != "text"
        # The leading text columns name the row (a configuration id): keep them on one line.
        rich.add_column(  # axis ids wrap between their words, not inside them
            column.label.replace("_", " "), justify="right" if numeric else "left",
            overflow="fold", no_wrap=k < naming,
        )
    best = {c.key: table.best_rows(c.key) for c in table.columns}
    for i, row in enumerate(table.rows):
        cells = []
        for column in table.columns:
            text = table.text(row, column.key)
            if i in best[column.key]:
                cells.append(Text(text + BEST_MARK, style="bold green"))
            else:
                cells.append(Text(text))
        rich.add_row(*cells)
    captions = []
    if any(best.values()):
        captions.append(f"{BEST_MARK} best in column")
    captions += table.notes
    if captions:
        rich.caption = "; ".join(captions)
    return rich


def print_analysis(analysis: Analysis, console: Console) -> None:
    """The header and every non-detail table, in report order."""
    data = analysis.data
    suite = f"{data.suite.name} {data.suite.version}" if data.suite else "unknown suite"
    judges = (
        ", ".join(f"{j} (main)" if j == analysis.primary else j for j in analysis.judges) or "none"
    )
    console.print(Text.assemble(("refig report ", "bold"), str(analysis.run)))
    console.print(
        f"{suite}: {len(data.task_order)} tasks, {len(data.config_order)} configurations, "
        f"judges: {judges}, {len(data.preferences)} human votes"
    )
    for table in analysis.tables:
        if table.detail:
            continue
        console.print()
        rendered = render_table(table)
        if isinstance(rendered, RichTable):
            print_table(console, rendered)
        else:
            console.print(rendered)
