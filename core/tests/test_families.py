"""Task families: every kind of contribution is held to the families it serves, in one place.

A judge, metric, renderer or reporter that does not serve the run's family exits 2 naming those
that do, before any work; a judge's cache key changes with its plugin's version.
"""

from __future__ import annotations

import gzip
import importlib
from pathlib import Path

import pytest
from refig.cli import run as refig
from refig.errors import FamilyMismatchError
from refig.judging import select_judges
from refig.plugins import Registry
from refig.records import PluginKind

FIXTURE = Path(__file__).parent / "fixtures" / "v1"

DECK_ONLY = """
from refig.plugin import (Judge, JudgeRecord, MetricRecord, RendererRecord, ReporterRecord,
                          WorkflowRecord, hookimpl)

DECK = frozenset({"deck-edit"})

class Key(Judge):
    key = "deck-judge-key"

    def judge(self, request):
        raise NotImplementedError

@hookimpl
def refig_judges():
    yield JudgeRecord(name="deck-judge", description="d", factory=lambda **_: Key(),
                      families=DECK)

@hookimpl
def refig_metrics():
    yield MetricRecord(name="deck-metric", description="d", factory=dict, families=DECK)

@hookimpl
def refig_renderers():
    yield RendererRecord(name="deck-renderer", description="d", factory=dict, families=DECK)

@hookimpl
def refig_reporters():
    yield ReporterRecord(name="deck-reporter", description="d", factory=dict, families=DECK)

@hookimpl
def refig_workflows():
    yield WorkflowRecord(name="deck-workflow", description="d", factory=dict, families=DECK)
"""


def _run(tmp_path: Path) -> Path:
    """A real figure-to-slide run (the migration fixture's), to evaluate."""
    run = tmp_path / "run"
    (run / "objects").mkdir(parents=True)
    (run / "refig.db").write_bytes(gzip.decompress((FIXTURE / "refig.db.gz").read_bytes()))
    return run


@pytest.fixture
def registry(make_dist) -> Registry:
    make_dist("testplug-deck", DECK_ONLY)
    return Registry.load(environ={}, warn=lambda _: None)


@pytest.mark.parametrize("kind", ["judge", "metric", "renderer", "reporter", "workflow"])
def test_a_contribution_for_another_family_is_refused_naming_those_that_serve(registry, kind):
    name = f"deck-{kind}"
    assert registry.resolve_for(kind, name, "deck-edit").record.name == name
    with pytest.raises(FamilyMismatchError) as caught:
        registry.resolve_for(kind, name, "figure-to-slide")
    serving = [r.name for r in registry.serving(kind, "figure-to-slide")]
    assert caught.value.serving == sorted(serving) and name not in serving
    assert "does not serve the figure-to-slide family" in caught.value.message


def test_evaluate_with_a_judge_of_another_family_exits_2_before_any_work(
        registry, tmp_path, capsys):
    run = _run(tmp_path)
    assert refig(["evaluate", str(run), "--judge", "deck-judge", "-q"]) == 2
    err = capsys.readouterr().err
    assert "judge 'deck-judge' does not serve the figure-to-slide family" in err
    assert "metrics" in err  # the proxy judge serves it, and is named


def test_evaluate_with_a_metric_or_renderer_of_another_family_exits_2(registry, tmp_path, capsys):
    run = _run(tmp_path)
    assert refig(["evaluate", str(run), "--metric", "deck-metric", "-q"]) == 2
    assert "metric 'deck-metric' does not serve" in capsys.readouterr().err
    assert refig(["evaluate", str(run), "--renderer", "deck-renderer", "-q"]) == 2
    assert "renderer 'deck-renderer' does not serve" in capsys.readouterr().err


def test_a_judges_cache_key_follows_its_plugin_version(make_dist, site_dir):
    make_dist("testplug-deck", DECK_ONLY, version="1.0")
    first = select_judges(Registry.load(environ={}, warn=lambda _: None), ["deck-judge"])[0]
    first_key = first.key
    info = next(site_dir.glob("testplug_deck-*.dist-info"))
    info.rename(site_dir / "testplug_deck-2.0.dist-info")
    (site_dir / "testplug_deck-2.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: testplug-deck\nVersion: 2.0\n")
    importlib.invalidate_caches()
    second = select_judges(Registry.load(environ={}, warn=lambda _: None), ["deck-judge"])[0]
    assert first.judge.key == second.judge.key == "deck-judge-key"
    assert first_key != second.key  # same judge key, new release: judged again


def test_list_plugins_shows_families(capsys):
    assert refig(["list-plugins", "--kind", "family", "--json"]) == 0
    out = capsys.readouterr().out
    assert "family:figure-to-slide" in out and PluginKind.FAMILY.value == "family"
