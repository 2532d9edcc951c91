"""Every hookspec's ``Example::`` runs: it becomes the ``hooks`` module of an installed plugin
(importing only ``refig.plugin``), and the registry lists what it registers."""

from __future__ import annotations

import inspect
import re
import textwrap

import pytest
from refig import hookspecs
from refig.cli import run
from refig.plugins import REGISTRATION_HOOKS, Registry

SPECS = {name: func for name, func in vars(hookspecs).items()
         if name.startswith("refig_") and callable(func)}


def example(hook: str) -> str:
    """The hook's ``Example::`` block, dedented."""
    doc = inspect.getdoc(SPECS[hook]) or ""
    match = re.search(r"Example::\n\n(.*?)\n\n(?=\S)", doc, re.S)
    assert match, f"{hook} has no Example:: block"
    return textwrap.dedent(match.group(1))


def plugin_module(hook: str) -> str:
    """The example as a hooks module: the names it uses come from ``refig.plugin``."""
    return "from refig.plugin import *  # noqa: F403\n\n" + example(hook) + "\n"


def test_every_hookspec_has_an_example() -> None:
    for hook in SPECS:
        assert "@hookimpl" in example(hook)


@pytest.mark.parametrize("hook", sorted(REGISTRATION_HOOKS))
def test_a_registration_example_registers_its_record(make_dist, hook: str) -> None:
    kind = REGISTRATION_HOOKS[hook]
    dist = f"testplug-example-{kind.value}"
    make_dist(dist, plugin_module(hook))
    registry = Registry.load(environ={"REFIG_STRICT_PLUGINS": "1"}, warn=lambda _: None)
    name = re.search(r'name="([^"]+)"', example(hook)).group(1)  # type: ignore[union-attr]
    assert registry.resolve(kind, name).distribution == dist


def test_the_commands_example_adds_its_command(make_dist, capsys) -> None:
    make_dist("testplug-example-commands", plugin_module("refig_commands"))
    assert run(["hello"]) == 0
    assert "hello" in capsys.readouterr().out
