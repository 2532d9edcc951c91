"""Reference programs in MATLAB (run under GNU Octave), one per category."""

from __future__ import annotations

from refig_family_figure_to_code.sample.data import SampleData, fit


def _vec(values: tuple[float, ...] | list[float]) -> str:
    return "[" + " ".join(f"{v:g}" for v in values) + "]"


def _cells(values: tuple[str, ...]) -> str:
    return "{" + ", ".join(f"'{v}'" for v in values) + "}"


def _rgb(colour: str) -> str:
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return f"[{r:.3f} {g:.3f} {b:.3f}]"


def statistical(d: SampleData) -> str:
    return (
        "fid = fopen('values.csv');\nfgetl(fid);\nlabels = {};\nvalues = [];\n"
        "line = fgetl(fid);\nwhile ischar(line)\n  parts = strsplit(line, ',');\n"
        "  labels{end + 1} = parts{1};\n  values(end + 1) = str2double(parts{2});\n"
        "  line = fgetl(fid);\nend\nfclose(fid);\n"
        f"figure;\nbar(values, 'FaceColor', {_rgb(d.colour)});\n"
        "set(gca, 'XTick', 1:numel(labels), 'XTickLabel', labels);\n"
        f"title('{d.title}');\nylabel('Count');\n"
    )


def temporal(d: SampleData) -> str:
    return (
        f"years = {_vec(d.xs)};\nvalues = {_vec(d.values)};\n"
        f"figure;\nplot(years, values, '-o', 'Color', {_rgb(d.colour)});\n"
        f"title('{d.title}');\nxlabel('Year');\nylabel('Level');\ngrid on;\n"
    )


def compositional(d: SampleData) -> str:
    return (
        f"shares = {_vec(d.values)};\nfigure;\npie(shares, {_cells(d.labels)});\n"
        f"colormap([{_rgb(d.colour)}; {_rgb(d.second_colour)}; 0.73 0.73 0.73; "
        "0.33 0.33 0.33]);\n"
        f"title('{d.title}');\n"
    )


def geospatial(d: SampleData) -> str:
    x0, y0, x1, y1 = d.params
    return (
        f"lon = {_vec(d.xs)};\nlat = {_vec(d.ys)};\nfigure;\n"
        f"plot([{x0:.2f} {x1:.2f} {x1:.2f} {x0:.2f} {x0:.2f}], "
        f"[{y0:.2f} {y0:.2f} {y1:.2f} {y1:.2f} {y0:.2f}], 'k-');\nhold on;\n"
        f"scatter(lon, lat, 40, {_rgb(d.colour)}, 'filled');\n"
        f"title('{d.title}');\nxlabel('Longitude');\nylabel('Latitude');\n"
    )


def mathematical(d: SampleData) -> str:
    a, f = d.params
    return (
        "x = linspace(0, 2 * pi, 200);\nfigure;\n"
        f"plot(x, {a:g} * sin({f:g} * x), 'Color', {_rgb(d.colour)});\nhold on;\n"
        f"plot(x, {a:g} * cos({f:g} * x), 'Color', {_rgb(d.second_colour)});\n"
        f"title('{d.title}');\nlegend('sin', 'cos');\n"
    )


def relational(d: SampleData) -> str:
    slope, intercept = fit(d.xs, d.ys)
    return (
        f"x = {_vec(d.xs)};\ny = {_vec(d.ys)};\nfigure;\n"
        f"scatter(x, y, 36, {_rgb(d.colour)}, 'filled');\nhold on;\n"
        f"plot([0 10], [{intercept:.3f} {intercept + 10 * slope:.3f}], 'Color', "
        f"{_rgb(d.second_colour)});\n"
        f"title('{d.title}');\nxlabel('x');\nylabel('y');\n"
    )


def conceptual(d: SampleData) -> str:
    n = len(d.labels)
    return (
        f"steps = {_cells(d.labels)};\nfigure;\nhold on;\n"
        "for i = 1:numel(steps)\n  x = (i - 1) * 3;\n"
        f"  rectangle('Position', [x 0 2 1], 'FaceColor', {_rgb(d.colour)}, "
        "'EdgeColor', 'none');\n"
        "  text(x + 1, 0.5, steps{i}, 'HorizontalAlignment', 'center', 'Color', 'w');\n"
        "  if i < numel(steps)\n    quiver(x + 2, 0.5, 1, 0, 0, 'k', 'MaxHeadSize', 0.5);\n"
        "  end\nend\n"
        f"axis([-0.5 {3 * n - 0.5} -1 2]);\naxis off;\ntitle('{d.title}');\n"
    )
