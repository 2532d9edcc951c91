"""The import structure: first-party plugins import only the documented core surface (toolkits,
libraries over the core, may import any of it), the core imports no toolkit, and it has no
import cycle. All are read from the source with ``ast`` (no import runs), counting every import:
module-level ones, those inside functions (lazy imports, which keep start-up fast, are fine as
long as they close no cycle) and those under ``if TYPE_CHECKING:``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core" / "src" / "refig"
PLUGIN_ROOTS = ("plugins", "harnesses", "judges", "metrics")
#: What a plugin's code may import of the core; toolkits (``refig_toolkit_*``) are libraries
#: any plugin may import.
ALLOWED = ("refig", "refig.plugin")
#: Toolkits are libraries over the core: they may import any core module (the core never
#: imports them).
TOOLKITS = "plugins/toolkit-*/src/**/*.py"
AGENT = ROOT / "plugins" / "toolkit-agent" / "src" / "refig_toolkit_agent"


def _imports(path: Path, packages: tuple[str, ...] = ("refig",)) -> Iterator[tuple[int, str]]:
    """(line, module) of every import of ``packages`` in ``path``, wherever it stands: one inside
    a function runs late, on use, and one under ``if TYPE_CHECKING:`` never runs, but a cycle
    through either is still a layering knot."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in packages:
                if node.module == "refig":  # `from refig import x`: x may be a submodule
                    for alias in node.names:
                        sub = CORE / alias.name
                        known = sub.exists() or sub.with_suffix(".py").exists()
                        yield node.lineno, f"refig.{alias.name}" if known else "refig"
                else:
                    yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in packages:
                    yield node.lineno, alias.name


def _allowed(module: str) -> bool:
    return any(module == a or module.startswith(a + ".") for a in ALLOWED if a != "refig") or (
        module == "refig")


def test_first_party_plugins_import_only_the_documented_surfaces() -> None:
    offences = []
    toolkits = set(ROOT.glob(TOOLKITS))
    for root in PLUGIN_ROOTS:
        for path in sorted(set((ROOT / root).glob("*/src/**/*.py")) - toolkits):
            for line, module in _imports(path):
                if not _allowed(module):
                    offences.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not offences, "\n".join(offences)


def test_the_core_imports_no_toolkit() -> None:
    toolkits = tuple(p.name.replace("toolkit-", "refig_toolkit_")
                     for p in (ROOT / "plugins").glob("toolkit-*"))
    offences = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted(CORE.rglob("*.py"))
        for line, module in _imports(path, packages=toolkits)
    ]
    assert not offences, "\n".join(offences)


def _module_name(path: Path, core: Path) -> str:
    parts = path.relative_to(core.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def find_cycles(core: Path) -> list[str]:
    """Import cycles among the modules under ``core`` (a package directory)."""
    modules = {_module_name(p, core): p for p in core.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for _, module in _imports(path):
            # importing a.b.c imports the packages a and a.b first
            parts = module.split(".")
            targets |= {".".join(parts[:k]) for k in range(1, len(parts) + 1)}
        graph[name] = {t for t in targets if t in modules and t != name}
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt):], nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    # a package importing its own submodules in __init__ is not a cycle of concern
    return [c for c in cycles if not _package_init_only(c)]


def test_the_core_has_no_import_cycle() -> None:
    cycles = find_cycles(CORE)
    assert not cycles, "\n".join(cycles)


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path) -> None:
    package = tmp_path / "refig"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from refig.sub.b import x\n")
    (package / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\n"
                                          "if TYPE_CHECKING:\n    from refig.a import y\n")
    (package / "c.py").write_text("def late():\n    from refig.a import y\n")
    assert find_cycles(package) == ["refig.a -> refig.sub.b -> refig.a"]
    # a cycle closed by an import inside a function counts too
    (package / "d.py").write_text("from refig.c import late\n")
    (package / "a.py").write_text("def late():\n    from refig.d import late\n")
    (package / "sub" / "b.py").write_text("")
    assert find_cycles(package) == ["refig.a -> refig.d -> refig.c -> refig.a"]


def _package_init_only(cycle: str) -> bool:
    """``refig.x -> refig.x.y -> refig.x``: a package's __init__ re-exporting a submodule
    that imports a sibling through the package."""
    nodes = cycle.split(" -> ")
    head = nodes[0]
    return all(n == head or n.startswith(head + ".") for n in nodes)


def test_production_code_does_not_build_on_test_stand_ins_and_pricing_stands_alone() -> None:
    for path in (AGENT / "gateway").glob("*.py"):
        modules = {m for _, m in _imports(path, packages=("refig_toolkit_testing",))}
        assert not any(m.startswith("refig_toolkit_testing") for m in modules), path
    pricing = ast.parse((AGENT / "gateway" / "pricing.py").read_text(encoding="utf-8"))
    toolkit = {node.module for node in ast.walk(pricing) if isinstance(node, ast.ImportFrom)
               and (node.module or "").startswith("refig_toolkit_agent")}
    assert toolkit and all(m.startswith("refig_toolkit_agent.gateway.") for m in toolkit)
    assert not (CORE / "standins").exists() and not list(CORE.rglob("utils.py"))
