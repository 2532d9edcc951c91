"""The plugin surface, ``refig.plugin``: at most 80 names, each imported by a first-party plugin,
toolkit or the template, or documented in ``docs/plugins.md`` as for third parties; the page's
table lists exactly these names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import refig.plugin

ROOT = Path(__file__).resolve().parents[1]
ROOTS = ("plugins", "harnesses", "judges", "metrics", "plugin-template")
DOCS = ROOT / "docs" / "plugins.md"
MAX_NAMES = 80
#: ``from refig.plugin import a, b`` or ``(a, b)``, in a template file (Jinja is no Python).
IMPORT = re.compile(r"from refig\.plugin import (\([^)]*\)|[^\n]*)")


def _imported(path: Path) -> set[str]:
    """The names ``path`` imports from ``refig.plugin``."""
    text = path.read_text(encoding="utf-8")
    if "{{" in text or "{%" in text:  # a template file
        return {name for found in IMPORT.findall(text)
                for name in re.findall(r"\w+", found.split("#")[0])}
    return {alias.name for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.ImportFrom) and node.module == "refig.plugin"
            for alias in node.names}


def _first_party_imports() -> set[str]:
    return {name for root in ROOTS for path in (ROOT / root).rglob("*.py")
            if ".venv" not in path.parts for name in _imported(path)}


def _surface_table() -> dict[str, str]:
    """Each name of the page's surface table and its row."""
    section = DOCS.read_text().split("### What `refig.plugin` exports", 1)[1].lstrip()
    table = section.split("\n\n", 1)[0]  # the first table after the heading
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    return {name: row for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[2])}


def test_the_surface_is_small() -> None:
    assert len(refig.plugin.__all__) <= MAX_NAMES, len(refig.plugin.__all__)
    assert len(set(refig.plugin.__all__)) == len(refig.plugin.__all__)


def test_every_name_loads() -> None:
    for name in refig.plugin.__all__:
        assert getattr(refig.plugin, name) is not None, name


def test_every_name_is_used_by_a_plugin_or_documented_for_third_parties() -> None:
    used = _first_party_imports()
    table = _surface_table()
    unused = [name for name in refig.plugin.__all__
              if name not in used and "third parties" not in table.get(name, "")]
    assert not unused, f"imported by no first-party plugin, not for third parties: {unused}"


def test_plugins_import_only_names_the_surface_has() -> None:
    assert _first_party_imports() <= set(refig.plugin.__all__) | {"*"}


def test_the_documented_table_is_the_surface() -> None:
    assert set(_surface_table()) == set(refig.plugin.__all__)
