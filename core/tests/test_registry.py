"""The plugin registry against real, metadata-discoverable distributions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from refig.cli import run
from refig.errors import PluginLoadError, RefigError, UnknownPluginError
from refig.plugins import Registry
from refig.records import PluginKind

JUDGE_PLUGIN = """
from refig import hookimpl
from refig.records import JudgeRecord, MetricRecord

def _make(argument=None, **options):
    import testplug_heavy_dependency_that_is_not_installed  # noqa: F401 - heavy import in factory

@hookimpl
def refig_judges():
    yield JudgeRecord(name="{name}", description="a test judge", factory=_make,
                      aliases=("{name}-alias",), accepts_argument=True)

@hookimpl
def refig_metrics():
    return [MetricRecord(name="{name}-metric", description="a test metric", factory=_make)]
"""


def _load(**env: str) -> tuple[Registry, list[str]]:
    """Load the registry; keep only warnings about this test's distributions.

    Other plugins (the workspace's own) are installed too, as on a user's machine, so tests look
    at the test distributions rather than at whole listings.
    """
    lines: list[str] = []
    registry = Registry.load(environ=env, warn=lines.append)
    return registry, [line for line in lines if "testplug" in line]


def _strict(dists: str) -> dict[str, str]:
    """Strict mode, loading only this test's distributions."""
    return {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": dists}


def _info(registry: Registry, name: str):
    return next(i for i in registry.plugins if i.name == name)


def test_builtins_are_always_there(site_dir):
    registry, lines = _load()
    core = _info(registry, "refig-core")
    assert core.builtin and core.status == "active"
    assert "executor:local" in core.provides
    assert registry.resolve("executor", "local").record.name == "local"
    assert lines == []


def test_good_plugin_is_active_with_what_it_provides(make_dist):
    make_dist("testplug-judge-good", JUDGE_PLUGIN.format(name="good"), version="2.3")
    registry, lines = _load()
    info = _info(registry, "testplug-judge-good")
    assert (info.status, info.version, info.error) == ("active", "2.3", None)
    assert sorted(info.provides) == ["judge:good", "metric:good-metric"]
    assert info.hooks == ["refig_judges", "refig_metrics"]
    assert info.as_json().keys() == {"name", "version", "status", "provides", "hooks", "error"}
    assert lines == []


def test_selectors_resolve_names_aliases_and_arguments(make_dist):
    make_dist("testplug-judge-good", JUDGE_PLUGIN.format(name="good"))
    registry, _ = _load()
    assert registry.resolve("judge", "good-alias").record.name == "good"
    chosen = registry.resolve(PluginKind.JUDGE, "good:openai/gpt-x")
    assert (chosen.record.name, chosen.argument, chosen.label) == (
        "good", "openai/gpt-x", "good:openai/gpt-x")
    assert chosen.distribution == "testplug-judge-good"
    with pytest.raises(ModuleNotFoundError, match="heavy_dependency"):
        chosen.create()  # the heavy import happens only here
    with pytest.raises(UnknownPluginError) as info:
        registry.resolve("judge", "nope")
    assert info.value.exit_code == 2
    assert "good" in info.value.available and "available judges: " in str(info.value)
    with pytest.raises(UnknownPluginError):
        registry.resolve("metric", "good-metric:arg")  # metric does not accept arguments


HOOKIMPL = "from refig import hookimpl\n@hookimpl\n"
BROKEN = {
    "import": "import testplug_module_that_does_not_exist\n",
    "unknown-hook": HOOKIMPL + "def refig_teleport():\n    return []\n",
    "raises": HOOKIMPL + "def refig_judges():\n    raise RuntimeError('boom')\n",
    "wrong-type": HOOKIMPL + "def refig_judges():\n    return ['judge']\n",
    "bad-signature": HOOKIMPL + "def refig_commands(app, extra):\n    pass\n",
}
BROKEN_ERRORS = {
    "import": "ModuleNotFoundError",
    "unknown-hook": "unknown hook(s) refig_teleport",
    "raises": "RuntimeError: boom",
    "wrong-type": "returned str, expected JudgeRecord",
    "bad-signature": "PluginValidationError",
}


@pytest.mark.parametrize("flavour", sorted(BROKEN))
def test_broken_plugin_is_reported_and_skipped(make_dist, flavour):
    make_dist("testplug-judge-good", JUDGE_PLUGIN.format(name="good"))
    make_dist(f"testplug-broken-{flavour}", BROKEN[flavour])
    registry, lines = _load()
    info = _info(registry, f"testplug-broken-{flavour}")
    assert info.status == "failed"
    assert BROKEN_ERRORS[flavour] in info.error
    assert info.provides == []
    assert len(lines) == 1 and f"testplug-broken-{flavour}" in lines[0]
    assert _info(registry, "testplug-judge-good").status == "active"
    with pytest.raises(PluginLoadError, match=f"testplug-broken-{flavour}"):
        Registry.load(environ=_strict(f"testplug-broken-{flavour}"), warn=lambda _: None)


def test_allow_and_deny_lists(make_dist):
    make_dist("testplug-judge-a", JUDGE_PLUGIN.format(name="a"))
    make_dist("testplug-judge-b", JUDGE_PLUGIN.format(name="b"))
    only_builtins, _ = _load(REFIG_LOAD_PLUGINS="")
    assert only_builtins.names("judge") == []
    assert {i.status for i in only_builtins.plugins if not i.builtin} == {"disabled"}
    only_a, _ = _load(REFIG_LOAD_PLUGINS="testplug_judge_A")  # names are normalised
    assert only_a.names("judge") == ["a"]
    not_a, _ = _load(REFIG_DISABLE_PLUGINS="testplug-judge-a, other")
    assert "a" not in not_a.names("judge") and "b" in not_a.names("judge")
    assert _info(not_a, "testplug-judge-a").status == "disabled"


def _installed_in_order(*packages: Path) -> None:
    """Give each distribution's metadata a later time than the one before (its install time)."""
    for order, package in enumerate(packages):
        for info in package.parent.glob(f"{package.name}-*.dist-info"):
            os.utime(info, (1_000_000 + order, 1_000_000 + order))


def test_a_clash_takes_the_name_from_the_newcomer_only(make_dist):
    first = make_dist("testplug-judge-b", JUDGE_PLUGIN.format(name="same"))
    later = make_dist("testplug-judge-a", JUDGE_PLUGIN.format(name="same").replace(
        'name="same-metric"', 'name="mine-metric"'))
    make_dist("testplug-judge-c", JUDGE_PLUGIN.format(name="other"))
    _installed_in_order(first, later)  # b installed first, though a sorts first
    registry, lines = _load()
    holder, newcomer = _info(registry, "testplug-judge-b"), _info(registry, "testplug-judge-a")
    assert holder.status == newcomer.status == "active" and not holder.lost
    # the newcomer loses the clashing names (the judge and its alias), keeps its metric
    assert newcomer.provides == ["metric:mine-metric"]
    assert registry.resolve("judge", "same").distribution == "testplug-judge-b"
    assert registry.resolve("metric", "other-metric").distribution == "testplug-judge-c"
    said = " ".join(newcomer.lost)
    assert "testplug-judge-a" in said and "testplug-judge-b" in said
    assert "testplug-judge-a loses judge 'same'" in said
    assert newcomer.as_json()["error"] == "; ".join(newcomer.lost)
    assert lines and all("testplug-judge-a" in line and "testplug-judge-b" in line
                         for line in lines)
    with pytest.raises(PluginLoadError, match="claimed by both"):
        Registry.load(environ=_strict("testplug-judge-a,testplug-judge-b"), warn=lambda _: None)


def test_a_clash_on_an_alias_takes_only_the_alias(make_dist):
    first = make_dist("testplug-judge-x", JUDGE_PLUGIN.format(name="x"))
    later = make_dist("testplug-judge-y", JUDGE_PLUGIN.format(name="y").replace(
        'aliases=("y-alias",)', 'aliases=("x-alias", "y-alias")'))
    _installed_in_order(first, later)
    registry, _ = _load()
    assert registry.resolve("judge", "x-alias").distribution == "testplug-judge-x"
    assert registry.resolve("judge", "y").distribution == "testplug-judge-y"
    assert registry.resolve("judge", "y-alias").record.name == "y"
    assert "the alias 'x-alias' of its judge 'y'" in _info(registry, "testplug-judge-y").lost[0]


def test_a_plugin_cannot_take_a_builtin_name(make_dist):
    make_dist("testplug-executor-fake", """
from refig import hookimpl
from refig.records import ExecutorRecord
@hookimpl
def refig_executors():
    yield ExecutorRecord(name="local", description="impostor", factory=object)
""")
    registry, _ = _load()
    fake = _info(registry, "testplug-executor-fake")
    assert fake.provides == [] and "refig-core (installed first) keeps it" in fake.lost[0]
    assert registry.resolve("executor", "local").distribution == "refig-core"


def test_a_failed_import_names_the_file_and_line(make_dist):
    package = make_dist("testplug-broken-line", "import os\n\nimport testplug_not_there\n")
    registry, lines = _load()
    info = _info(registry, "testplug-broken-line")
    assert f"{package / 'hooks.py'}:3" in info.error
    assert "Traceback" not in " ".join(lines)
    with pytest.raises(PluginLoadError, match=r"hooks\.py:3"):
        Registry.load(environ=_strict("testplug-broken-line"), warn=lambda _: None)


def test_a_syntax_error_names_its_line_and_refig_debug_shows_the_traceback(make_dist):
    package = make_dist("testplug-broken-syntax", "x = 1\ndef (:\n")
    registry, _ = _load()
    assert f"{package / 'hooks.py'}:2" in _info(registry, "testplug-broken-syntax").error
    _, debug_lines = _load(REFIG_DEBUG="1")
    assert any("Traceback (most recent call last)" in line for line in debug_lines)
    said: list[str] = []
    with pytest.raises(PluginLoadError):
        Registry.load(environ={**_strict("testplug-broken-syntax"), "REFIG_DEBUG": "1"},
                      warn=said.append)
    assert any("Traceback" in line and "SyntaxError" in line for line in said)


def test_hooks_without_hookimpl_are_warned_about(make_dist):
    make_dist("testplug-judge-unmarked", JUDGE_PLUGIN.format(name="u").replace("@hookimpl\n", ""))
    make_dist("testplug-judge-empty", "X = 1\n")
    registry, lines = _load()
    assert _info(registry, "testplug-judge-unmarked").provides == []
    said = "\n".join(lines)
    assert "refig_judges, refig_metrics without @hookimpl" in said
    assert "testplug-judge-empty" in said and "implements no refig hook" in said


@pytest.mark.parametrize(("factory", "complaint"), [
    ("'not a function'", "judge 'odd' has a factory that is not callable (str)"),
    ("None", "judge 'odd' has a factory that is not callable (NoneType)"),
])
def test_a_record_whose_factory_cannot_be_called_fails_when_loaded(make_dist, factory, complaint):
    make_dist("testplug-judge-odd", f"""
from refig import hookimpl
from refig.records import JudgeRecord
@hookimpl
def refig_judges():
    yield JudgeRecord(name="odd", description="d", factory={factory})
""")
    registry, lines = _load()
    info = _info(registry, "testplug-judge-odd")
    assert info.status == "failed" and complaint in info.error
    assert "testplug-judge-odd" in lines[0]


def test_a_factory_returning_none_is_named_when_created(make_dist):
    make_dist("testplug-judge-none", """
from refig import hookimpl
from refig.records import JudgeRecord
@hookimpl
def refig_judges():
    yield JudgeRecord(name="nothing", description="d", factory=lambda **_: None)
""")
    registry, _ = _load()
    with pytest.raises(RefigError, match="plugin testplug-judge-none: the factory of judge "
                       "'nothing' returned None"):
        registry.resolve("judge", "nothing").create()


@pytest.mark.parametrize("flavour", ["import", "raises"])
def test_a_judge_plugin_that_failed_is_listed_under_its_kind(make_dist, capsys, flavour):
    make_dist("testplug-judge-good", JUDGE_PLUGIN.format(name="good"))
    make_dist(f"testplug-judge-{flavour}", BROKEN[flavour])
    make_dist("testplug-executor-broken", BROKEN["import"])
    assert run(["list-plugins", "--json", "--kind", "judge"]) == 0
    listed = {p["name"]: p["status"] for p in json.loads(capsys.readouterr().out)
              if p["name"].startswith("testplug-")}
    assert listed == {"testplug-judge-good": "active", f"testplug-judge-{flavour}": "failed"}
    assert run(["list-plugins", "--kind", "judge"]) == 0
    assert f"testplug-judge-{flavour}" in capsys.readouterr().out


COMMANDS = """
from refig import hookimpl

@hookimpl
def refig_commands(app):
    @app.command("hello")
    def hello(name: str = "world"):
        print(f"hello {name}")
"""


def test_plugin_commands_join_the_cli(make_dist, capsys):
    make_dist("testplug-hello", COMMANDS)
    assert run(["hello", "--name", "refig"]) == 0
    assert "hello refig" in capsys.readouterr().out


def test_list_plugins_names_the_commands_a_plugin_adds(make_dist, capsys):
    make_dist("testplug-hello", COMMANDS)
    assert run(["list-plugins", "--json"]) == 0
    listed = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    assert "command:hello" in listed["testplug-hello"]["provides"]


REGISTRY_COMMANDS = """
from refig import hookimpl

@hookimpl
def refig_commands(app, registry):
    @app.command("judges")
    def judges():
        print("judges:", ",".join(registry.names("judge")))
"""


def test_plugin_commands_may_read_the_registry(make_dist, capsys):
    make_dist("testplug-judge-good", JUDGE_PLUGIN.format(name="good"))
    make_dist("testplug-judges", REGISTRY_COMMANDS)
    assert run(["judges"]) == 0
    names = capsys.readouterr().out.split("judges:")[1].split()[0].split(",")
    assert "good" in names


def test_failing_command_hook_leaves_cli_working(make_dist, capsys):
    make_dist("testplug-badcmd", "from refig import hookimpl\n@hookimpl\ndef refig_commands(app):\n"
                              "    raise ValueError('no commands today')\n")
    assert run(["list-plugins", "--json"]) == 0
    captured = capsys.readouterr()
    listing = {p["name"]: p for p in json.loads(captured.out)}
    assert listing["testplug-badcmd"]["status"] == "failed"
    assert "no commands today" in listing["testplug-badcmd"]["error"]
    assert "testplug-badcmd" in captured.err


def test_list_plugins_json_shape_and_filters(make_dist, capsys):
    make_dist("testplug-judge-good", JUDGE_PLUGIN.format(name="good"))
    make_dist("testplug-broken", BROKEN["import"])
    assert run(["list-plugins", "--json"]) == 0
    plugins = json.loads(capsys.readouterr().out)
    by_name = {p["name"]: p for p in plugins}
    assert "refig-core" not in by_name  # built-ins only with --all
    assert by_name["testplug-judge-good"] == {
        "name": "testplug-judge-good", "version": "1.0", "status": "active",
        "provides": ["judge:good", "metric:good-metric"],
        "hooks": ["refig_judges", "refig_metrics"], "error": None,
    }
    assert by_name["testplug-broken"]["status"] == "failed"
    assert run(["list-plugins", "--all", "--json", "--kind", "executor"]) == 0
    executors = [p["name"] for p in json.loads(capsys.readouterr().out)]
    assert "refig-core" in executors and "testplug-judge-good" not in executors
    assert run(["list-plugins"]) == 0
    table = capsys.readouterr().out
    assert "judge:good" in table and "failed" in table
    assert run(["list-plugins", "--kind", "bogus"]) == 2
    assert "unknown kind 'bogus'" in capsys.readouterr().err


def test_refig_run_names_a_factory_that_returns_none_before_any_attempt(
        make_dist, tmp_path, capsys):
    make_dist("testplug-harness-none", """
from refig import hookimpl
from refig.records import HarnessRecord
@hookimpl
def refig_harnesses():
    yield HarnessRecord(name="nothing", description="d", needs_model=False,
                        factory=lambda **_: None)
""")
    out = tmp_path / "run"
    assert run(["run", "--suite", str(tmp_path), "--harness", "nothing", "--out", str(out)]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "plugin testplug-harness-none: the factory of harness 'nothing' returned None" in said
    assert not out.exists()


def test_a_name_one_plugin_claims_twice_keeps_its_first_record(make_dist):
    make_dist("testplug-judge-twice", """
from refig import hookimpl
from refig.records import JudgeRecord
@hookimpl
def refig_judges():
    yield JudgeRecord(name="twice", description="first", factory=object)
    yield JudgeRecord(name="twice", description="second", factory=object)
""")
    registry, lines = _load()
    assert registry.resolve("judge", "twice").record.description == "first"
    assert "claimed twice by testplug-judge-twice" in lines[0]


def test_list_plugins_shows_what_a_newcomer_lost(make_dist, capsys):
    first = make_dist("testplug-judge-old", JUDGE_PLUGIN.format(name="shared"))
    later = make_dist(
        "testplug-judge-new",
        JUDGE_PLUGIN.format(name="shared").replace('name="shared-metric"', 'name="new-metric"'),
    )
    _installed_in_order(first, later)
    assert run(["list-plugins", "--kind", "judge"]) == 0
    # the table wraps the sentence within its column (and may come in parts, as wide as the
    # terminal): read each column's lines back as one text
    rows = [line.split("│")[1:-1] for line in capsys.readouterr().out.splitlines()
            if line.count("│") >= 2]
    shown = " ".join(" ".join(row[i].strip() for row in rows if i < len(row)) for i in range(8))
    assert "loses" in shown and "testplug-judge-old" in shown and "(installed first)" in shown
