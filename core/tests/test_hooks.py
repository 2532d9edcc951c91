"""Every hook is documented in docs/plugins.md with its exact signature, and is tested."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from refig import hookspecs
from refig.plugins import REGISTRATION_HOOKS, Registry
from refig.records import RECORD_TYPES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
SPECS = {
    name: func
    for name, func in vars(hookspecs).items()
    if name.startswith("refig_") and callable(func)
}

RECORD_EXTRA = {
    "suite": ", command=lambda out: out",
    "family": ', inputs=(InputSpec("figure", visible=True),), '
    'deliverables=(Deliverable("out", "out.txt", primary=True),), renderer="none"',
}

PLUGIN = """
from refig import hookimpl
from refig.records import {record}, InputSpec, Deliverable

@hookimpl
def {hook}():
    yield {record}(name="probe-{kind}", description="probe", factory=dict{extra})
"""


@pytest.mark.parametrize("hook", sorted(REGISTRATION_HOOKS))
def test_registration_hook(make_dist, hook):
    kind = REGISTRATION_HOOKS[hook]
    record = RECORD_TYPES[kind].__name__
    source = PLUGIN.format(record=record, hook=hook, kind=kind.value,
                           extra=RECORD_EXTRA.get(kind.value, ""))
    make_dist(f"testplug-probe-{kind.value}", source)
    registry = Registry.load(environ={}, warn=lambda _: None)
    chosen = registry.resolve(kind, f"probe-{kind.value}")
    assert chosen.distribution == f"testplug-probe-{kind.value}"
    assert chosen.create(x=1) == {"x": 1}


# refig_commands is exercised through the CLI in test_registry.py
TESTED_ELSEWHERE = {"refig_commands": "test_registry.py::test_plugin_commands_join_the_cli"}


def test_every_hook_is_tested():
    assert set(SPECS) == set(REGISTRATION_HOOKS) | set(TESTED_ELSEWHERE)
    source = (Path(__file__).parent / "test_registry.py").read_text()
    for reference in TESTED_ELSEWHERE.values():
        assert f"def {reference.split('::')[1]}(" in source


def _signature(func) -> str:
    signature = inspect.signature(func)
    params = ", ".join(f"{p.name}: {p.annotation}" for p in signature.parameters.values())
    return f"def {func.__name__}({params}) -> {signature.return_annotation}:"


@pytest.mark.parametrize("hook", sorted(SPECS))
def test_every_hook_is_documented_with_its_signature_and_an_example(hook):
    text = DOCS.read_text()
    match = re.search(rf"^### `{hook}`\n(.*?)(?=^### |^## |\Z)", text, re.M | re.S)
    assert match, f"docs/plugins.md has no section '### `{hook}`'"
    section = match.group(1)
    assert _signature(SPECS[hook]) in section, f"signature of {hook} missing or out of date"
    assert "Example" in section and "@hookimpl" in section
    assert "Returns" in section
