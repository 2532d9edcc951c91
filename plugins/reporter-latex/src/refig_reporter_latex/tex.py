"""Tables as booktabs LaTeX, with every character of the data escaped."""

from __future__ import annotations

from refig_toolkit_analysis import Table

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "Δ": r"$\Delta$",
    "ρ": r"$\rho$",
    "τ": r"$\tau$",
    "−": r"$-$",
    "≥": r"$\geq$",
    "½": r"$\frac{1}{2}$",
    "—": "---",
    "–": "--",
}


def escape(text: str) -> str:
    """Text safe inside a LaTeX document (special characters and the report's symbols)."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def table_tex(table: Table, caption: str | None = None, label: str | None = None) -> str:
    """A ``table`` float holding a booktabs ``tabular``, with caption, label and notes; the
    caption and label are the table's own unless given (a paper's)."""
    label = label or f"tab:refig-{table.key.replace('_', '-')}"
    caption = escape(caption if caption is not None else table.title) + (
        f". {escape(table.description)}" if table.description else "")
    if table.empty:
        return (
            f"% {table.key}: empty\n\\paragraph{{{escape(table.title)}}} "
            f"{escape(table.empty_sentence)}.\n"
        )
    spec = "".join("l" if c.kind == "text" else "r" for c in table.columns)
    best = {c.key: table.best_rows(c.key) for c in table.columns}
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        f"\\caption{{{caption}}}",
        f"\\label{{{label}}}",
        f"\\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(escape(c.label) for c in table.columns) + r" \\",
        r"\midrule",
    ]
    for i, row in enumerate(table.rows):
        cells = []
        for column in table.columns:
            text = escape(table.text(row, column.key))
            cells.append(f"\\textbf{{{text}}}" if i in best[column.key] else text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    notes = (["best per column in bold"] if any(best.values()) else []) + table.notes
    if notes:
        lines.append(f"\\par\\smallskip{{\\footnotesize {escape('; '.join(notes))}.}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def document(title: str, inputs: list[str], body: str | None = None) -> str:
    """A standalone article that inputs every table file (needs booktabs, and graphicx for a
    paper's figures), or holds ``body`` when given."""
    if body is None:
        body = "\n".join(f"\\input{{tables/{name}}}" for name in inputs)
    return (
        "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage[T1]{fontenc}\n"
        "\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
        "\\usepackage[margin=2cm,landscape]{geometry}\n"
        f"\\title{{{escape(title)}}}\n\\date{{}}\n\\begin{{document}}\n\\maketitle\n"
        f"{body}\n\\end{{document}}\n"
    )
