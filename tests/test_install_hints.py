"""Install hints name distributions that exist: `refig-core[EXTRA]` or
`refig-toolkit-NAME[EXTRA]` with an extra that distribution declares, never `refig[...]` (`refig`
on PyPI is an unrelated project that installs its own `refig` package and command, breaking
ours); optional clients name what installs them; messages point to documentation that exists
where refig is installed."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from refig.errors import RefigError, docs, install_fix

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    p
    for pattern in (
        "*/*/src/**/*.py",
        "core/src/**/*.py",
        "docs/*.md",
        "README.md",
        "*/*/README.md",
        "plugin-template/**/*",
    )
    for p in ROOT.glob(pattern)
    if p.is_file() and ".venv" not in p.parts
]
HINT = re.compile(r"(?<![\w-])refig\[(\w+)\]")
EXTRA_HINT = re.compile(r"(refig-core|refig-toolkit-[a-z]+)\[(\w+)\]")


def test_no_hint_installs_the_unrelated_refig_project() -> None:
    found = [
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p in SOURCES
        for m in HINT.finditer(p.read_text(errors="replace"))
    ]
    assert found == []


def _extras(distribution: str) -> set[str]:
    """The extras a workspace distribution declares (``refig-core`` or a toolkit)."""
    folder = ROOT / "core" if distribution == "refig-core" else (
        ROOT / "plugins" / distribution.removeprefix("refig-"))
    project = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
    return set(project.get("optional-dependencies", {}))


def test_every_extra_a_hint_names_is_declared() -> None:
    named = {
        (m.group(1), m.group(2))
        for p in SOURCES
        for m in EXTRA_HINT.finditer(p.read_text(errors="replace"))
    }
    undeclared = {f"{dist}[{extra}]" for dist, extra in named if extra not in _extras(dist)}
    assert named and not undeclared, undeclared
    assert "plot" in _extras("refig-toolkit-analysis")
    assert {"ocr", "locate"} <= _extras("refig-toolkit-imaging")
    assert "ocr" in (metadata.metadata("refig-toolkit-imaging").get_all("Provides-Extra") or [])


def test_the_llm_client_without_litellm_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from refig_toolkit_llm import import_litellm

    monkeypatch.setitem(sys.modules, "litellm", None)  # an environment without litellm
    with pytest.raises(RefigError) as caught:
        import_litellm()
    assert "needs litellm" in caught.value.message
    assert caught.value.fix == install_fix("refig-toolkit-llm")


def test_docs_point_to_pages_that_exist_here() -> None:
    assert Path(docs("running.md")).is_file()  # a clone: the file itself
    urls = metadata.metadata("refig-core").get_all("Project-URL") or []
    assert any(u.startswith("Documentation, https://") for u in urls)  # a wheel: the address


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            found.add(id(body[0].value))
    return found


def test_messages_name_no_bare_docs_path() -> None:
    """A string a user reads (any string but a docstring) never says `docs/X.md`, which a wheel
    does not hold; it calls docs() instead."""
    bare = re.compile(r"docs/[a-z-]+\.md")
    found = []
    for path in ROOT.glob("*/*/src/**/*.py"):
        if ".venv" in path.parts:
            continue
        tree = ast.parse(path.read_text())
        skip = _docstrings(tree)
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and bare.search(node.value)
        ]
    assert found == []
