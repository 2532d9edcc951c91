"""Reference programs in Python (matplotlib), one per category."""

from __future__ import annotations

from refig_family_figure_to_code.sample.data import SampleData, fit


def _head(d: SampleData) -> str:
    return "import matplotlib.pyplot as plt\nimport numpy as np\n\n"


def statistical(d: SampleData) -> str:
    return _head(d) + (
        "labels, values = [], []\n"
        "with open('values.csv') as handle:\n"
        "    next(handle)\n"
        "    for line in handle:\n"
        "        label, value = line.strip().split(',')\n"
        "        labels.append(label)\n"
        "        values.append(float(value))\n"
        "fig, ax = plt.subplots(figsize=(6.4, 4.8))\n"
        f"ax.bar(labels, values, color='{d.colour}')\n"
        f"ax.set_title('{d.title}')\nax.set_ylabel('Count')\n"
    )


def temporal(d: SampleData) -> str:
    return _head(d) + (
        f"years = {[int(x) for x in d.xs]}\nvalues = {list(d.values)}\n"
        "fig, ax = plt.subplots(figsize=(6.4, 4.8))\n"
        f"ax.plot(years, values, color='{d.colour}', marker='o')\n"
        f"ax.set_title('{d.title}')\nax.set_xlabel('Year')\nax.set_ylabel('Level')\n"
        "ax.grid(True)\n"
    )


def compositional(d: SampleData) -> str:
    return _head(d) + (
        f"shares = {list(d.values)}\nlabels = {list(d.labels)}\n"
        "fig, ax = plt.subplots(figsize=(6.4, 4.8))\n"
        f"ax.pie(shares, labels=labels, colors=['{d.colour}', '{d.second_colour}', "
        "'#bbbbbb', '#555555'], autopct='%1.0f%%')\n"
        f"ax.set_title('{d.title}')\n"
    )


def geospatial(d: SampleData) -> str:
    x0, y0, x1, y1 = d.params
    return _head(d) + (
        f"lon = {list(d.xs)}\nlat = {list(d.ys)}\n"
        "fig, ax = plt.subplots(figsize=(6.4, 4.8))\n"
        f"ax.plot([{x0:.2f}, {x1:.2f}, {x1:.2f}, {x0:.2f}, {x0:.2f}], "
        f"[{y0:.2f}, {y0:.2f}, {y1:.2f}, {y1:.2f}, {y0:.2f}], color='black')\n"
        f"ax.scatter(lon, lat, color='{d.colour}', s=40)\n"
        f"ax.set_title('{d.title}')\nax.set_xlabel('Longitude')\nax.set_ylabel('Latitude')\n"
    )


def mathematical(d: SampleData) -> str:
    a, f = d.params
    return _head(d) + (
        "x = np.linspace(0, 2 * np.pi, 200)\n"
        "fig, ax = plt.subplots(figsize=(6.4, 4.8))\n"
        f"ax.plot(x, {a:g} * np.sin({f:g} * x), color='{d.colour}', label='sin')\n"
        f"ax.plot(x, {a:g} * np.cos({f:g} * x), color='{d.second_colour}', label='cos')\n"
        f"ax.set_title('{d.title}')\nax.legend()\n"
    )


def relational(d: SampleData) -> str:
    slope, intercept = fit(d.xs, d.ys)
    return _head(d) + (
        f"x = np.array({list(d.xs)})\ny = np.array({list(d.ys)})\n"
        "fig, ax = plt.subplots(figsize=(6.4, 4.8))\n"
        f"ax.scatter(x, y, color='{d.colour}')\n"
        f"ax.plot([0, 10], [{intercept:.3f}, {intercept + 10 * slope:.3f}], "
        f"color='{d.second_colour}')\n"
        f"ax.set_title('{d.title}')\nax.set_xlabel('x')\nax.set_ylabel('y')\n"
    )


def conceptual(d: SampleData) -> str:
    return _head(d) + (
        f"steps = {list(d.labels)}\n"
        "fig, ax = plt.subplots(figsize=(6.4, 4.8))\n"
        "for i, step in enumerate(steps):\n"
        f"    ax.add_patch(plt.Rectangle((i * 3, 0), 2, 1, color='{d.colour}'))\n"
        "    ax.text(i * 3 + 1, 0.5, step, ha='center', va='center', color='white')\n"
        "    if i < len(steps) - 1:\n"
        "        ax.annotate('', xy=(i * 3 + 3, 0.5), xytext=(i * 3 + 2, 0.5),\n"
        "                    arrowprops=dict(arrowstyle='->'))\n"
        "ax.set_xlim(-0.5, len(steps) * 3 - 0.5)\nax.set_ylim(-1, 2)\nax.axis('off')\n"
        f"ax.set_title('{d.title}')\n"
    )
