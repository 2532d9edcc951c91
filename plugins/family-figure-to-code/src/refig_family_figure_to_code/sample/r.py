"""Reference programs in R (base graphics and ggplot2), one per category."""

from __future__ import annotations

from refig_family_figure_to_code.sample.data import SampleData, fit


def _vec(values: tuple[float, ...] | list[float]) -> str:
    return "c(" + ", ".join(f"{v:g}" for v in values) + ")"


def _strs(values: tuple[str, ...]) -> str:
    return "c(" + ", ".join(f'"{v}"' for v in values) + ")"


def statistical(d: SampleData) -> str:
    return (
        "library(ggplot2)\n"
        'df <- read.csv("values.csv")\n'
        f'ggplot(df, aes(x = label, y = value)) + geom_col(fill = "{d.colour}") +\n'
        f'  labs(title = "{d.title}", x = NULL, y = "Count") + theme_minimal()\n'
    )


def temporal(d: SampleData) -> str:
    return (
        "library(ggplot2)\n"
        f"df <- data.frame(year = {_vec(d.xs)}, value = {_vec(d.values)})\n"
        f'ggplot(df, aes(year, value)) + geom_line(colour = "{d.colour}") +\n'
        f'  geom_point(colour = "{d.colour}") +\n'
        f'  labs(title = "{d.title}", x = "Year", y = "Level")\n'
    )


def compositional(d: SampleData) -> str:
    return (
        f"shares <- {_vec(d.values)}\n"
        f"pie(shares, labels = {_strs(d.labels)},\n"
        f'    col = c("{d.colour}", "{d.second_colour}", "#bbbbbb", "#555555"),\n'
        f'    main = "{d.title}")\n'
    )


def geospatial(d: SampleData) -> str:
    x0, y0, x1, y1 = d.params
    return (
        f"lon <- {_vec(d.xs)}\nlat <- {_vec(d.ys)}\n"
        f'plot(lon, lat, pch = 19, col = "{d.colour}", xlab = "Longitude", ylab = "Latitude",\n'
        f'     main = "{d.title}", xlim = c({x0:.2f}, {x1:.2f}), ylim = c({y0:.2f}, {y1:.2f}))\n'
        f"rect({x0:.2f}, {y0:.2f}, {x1:.2f}, {y1:.2f})\n"
    )


def mathematical(d: SampleData) -> str:
    a, f = d.params
    return (
        "x <- seq(0, 2 * pi, length.out = 200)\n"
        f'plot(x, {a:g} * sin({f:g} * x), type = "l", col = "{d.colour}", ylab = "y",\n'
        f'     main = "{d.title}")\n'
        f'lines(x, {a:g} * cos({f:g} * x), col = "{d.second_colour}")\n'
        f'legend("topright", legend = c("sin", "cos"), col = c("{d.colour}", '
        f'"{d.second_colour}"), lty = 1)\n'
    )


def relational(d: SampleData) -> str:
    slope, intercept = fit(d.xs, d.ys)
    return (
        f"x <- {_vec(d.xs)}\ny <- {_vec(d.ys)}\n"
        f'plot(x, y, pch = 19, col = "{d.colour}", main = "{d.title}")\n'
        f'abline(a = {intercept:.3f}, b = {slope:.3f}, col = "{d.second_colour}")\n'
    )


def conceptual(d: SampleData) -> str:
    n = len(d.labels)
    return (
        f"steps <- {_strs(d.labels)}\n"
        f'plot.new()\nplot.window(xlim = c(0, {3 * n - 1}), ylim = c(-1, 2))\n'
        f'title(main = "{d.title}")\n'
        "for (i in seq_along(steps)) {\n"
        "  x <- (i - 1) * 3\n"
        f'  rect(x, 0, x + 2, 1, col = "{d.colour}", border = NA)\n'
        '  text(x + 1, 0.5, steps[i], col = "white")\n'
        "  if (i < length(steps)) arrows(x + 2, 0.5, x + 3, 0.5, length = 0.1)\n"
        "}\n"
    )
