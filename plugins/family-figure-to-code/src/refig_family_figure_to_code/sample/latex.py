"""Reference programs in LaTeX (TikZ and pgfplots, standalone), one per category."""

from __future__ import annotations

from refig_family_figure_to_code.sample.data import SampleData, fit

_HEAD = ("\\documentclass[tikz,border=4pt]{standalone}\n\\usepackage{pgfplots}\n"
         "\\pgfplotsset{compat=1.18}\n")


def _colours(d: SampleData) -> str:
    return (f"\\definecolor{{main}}{{HTML}}{{{d.colour[1:]}}}\n"
            f"\\definecolor{{second}}{{HTML}}{{{d.second_colour[1:]}}}\n")


def _axis(d: SampleData, options: str, body: str) -> str:
    return (_HEAD + _colours(d) + "\\begin{document}\n\\begin{tikzpicture}\n"
            f"\\begin{{axis}}[width=12cm, height=9cm, title={{{d.title}}}, {options}]\n"
            f"{body}\\end{{axis}}\n\\end{{tikzpicture}}\n\\end{{document}}\n")


def _coords(points: list[tuple[float, float]]) -> str:
    return " ".join(f"({x:g},{y:g})" for x, y in points)


def statistical(d: SampleData) -> str:
    return _axis(d, "ybar, bar width=24pt, ymin=0, ylabel={Count}, symbolic x coords={"
                 + ",".join(d.labels) + "}, xtick=data",
                 "\\addplot[fill=main, draw=none] table[x=label, y=value, col sep=comma]"
                 " {values.csv};\n")


def temporal(d: SampleData) -> str:
    points = list(zip(d.xs, d.values, strict=True))
    return _axis(d, "xlabel={Year}, ylabel={Level}, grid=major, "
                 "x tick label style={/pgf/number format/1000 sep={}}",
                 f"\\addplot[main, mark=*] coordinates {{{_coords(points)}}};\n")


def compositional(d: SampleData) -> str:
    slices, start = [], 90.0
    fills = ("main", "second", "black!25", "black!65")
    for label, share, fill in zip(d.labels, d.values, fills, strict=True):
        end = start + share * 3.6
        middle = (start + end) / 2
        slices.append(f"\\fill[{fill}] (0,0) -- ({start:g}:3) arc ({start:g}:{end:g}:3) "
                      f"-- cycle;\n\\node at ({middle:g}:3.6) {{{label}}};\n")
        start = end
    return (_HEAD + _colours(d) + "\\begin{document}\n\\begin{tikzpicture}\n" + "".join(slices)
            + f"\\node[font=\\bfseries] at (0,4.3) {{{d.title}}};\n"
            "\\end{tikzpicture}\n\\end{document}\n")


def geospatial(d: SampleData) -> str:
    x0, y0, x1, y1 = d.params
    points = list(zip(d.xs, d.ys, strict=True))
    return _axis(d, "xlabel={Longitude}, ylabel={Latitude}",
                 f"\\addplot[black] coordinates {{({x0:.2f},{y0:.2f}) ({x1:.2f},{y0:.2f}) "
                 f"({x1:.2f},{y1:.2f}) ({x0:.2f},{y1:.2f}) ({x0:.2f},{y0:.2f})}};\n"
                 f"\\addplot[only marks, mark=*, main] coordinates {{{_coords(points)}}};\n")


def mathematical(d: SampleData) -> str:
    a, f = d.params
    return _axis(d, "domain=0:6.2832, samples=100, legend pos=north east",
                 f"\\addplot[main, thick] {{{a:g}*sin(deg({f:g}*x))}};\n"
                 f"\\addplot[second, thick] {{{a:g}*cos(deg({f:g}*x))}};\n"
                 "\\legend{sin, cos}\n")


def relational(d: SampleData) -> str:
    slope, intercept = fit(d.xs, d.ys)
    points = list(zip(d.xs, d.ys, strict=True))
    return _axis(d, "xlabel={x}, ylabel={y}",
                 f"\\addplot[only marks, mark=*, main] coordinates {{{_coords(points)}}};\n"
                 f"\\addplot[second, domain=0:10] {{{slope:.3f}*x + {intercept:.3f}}};\n")


def conceptual(d: SampleData) -> str:
    nodes = []
    for i, step in enumerate(d.labels):
        nodes.append(f"\\node[box] (n{i}) at ({i * 3},0) {{{step}}};\n")
        if i:
            nodes.append(f"\\draw[-latex, thick] (n{i - 1}) -- (n{i});\n")
    return (_HEAD + _colours(d) + "\\begin{document}\n\\begin{tikzpicture}[box/.style={"
            "fill=main, text=white, minimum width=2cm, minimum height=1cm}]\n" + "".join(nodes)
            + f"\\node[font=\\bfseries] at ({(len(d.labels) - 1) * 1.5},1.5) {{{d.title}}};\n"
            "\\end{tikzpicture}\n\\end{document}\n")
