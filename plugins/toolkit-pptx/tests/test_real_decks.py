"""The gate and the object tree on real decks written by other projects (``../shared/data``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.models import GateReason
from refig_toolkit_pptx import ObjectKind, Package, read_tree
from refig_toolkit_pptx.gate import inspect_structure

REAL = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "pptx-real"


def deck(name: str) -> Path:
    path = REAL / name
    if not path.is_file():
        pytest.skip(f"{path} is not here (the shared data lives beside the repository)")
    return path


def total_counts(path: Path) -> dict[str, int]:
    """Counts summed over every slide of a deck (the gate rejects multi-slide decks)."""
    totals: dict[str, int] = {}
    with Package.open(path) as package:
        for ref in package.slides():
            for key, value in read_tree(package, ref.part).counts().items():
                totals[key] = totals.get(key, 0) + value
    return totals


def test_real_decks_fail_only_on_their_slide_count() -> None:
    """Decks written by real tools are never refused as corrupt or too large: only their slide
    count can fail them."""
    if not REAL.is_dir():
        pytest.skip("no shared real decks")
    for path in sorted(REAL.glob("*.pptx")):
        gate = inspect_structure(path).gate
        assert gate.reason not in (GateReason.CORRUPT, GateReason.TOO_LARGE), (path, gate.detail)


def test_connector_props_has_two_connectors() -> None:
    assert total_counts(deck("shp-connector-props.pptx"))["connectors"] == 2


def test_shapes_has_straight_and_elbow_connectors() -> None:
    with Package.open(deck("shapes.pptx")) as package:
        geometries = {
            obj.geometry
            for ref in package.slides()
            for obj in read_tree(package, ref.part).walk()
            if obj.kind == ObjectKind.CONNECTOR
        }
    assert {"straightConnector1", "bentConnector3"} <= geometries


def test_grouping_issues_is_one_slide_of_eleven_groups() -> None:
    """SOURCES.md calls them nested; the XML holds eleven groups side by side, each with shapes
    inside (deeper nesting is tested on generated decks)."""
    result = inspect_structure(deck("sample_pptx_grouping_issues.pptx"))
    assert result.gate.passed and result.tree is not None
    assert result.tree.counts()["groups"] == 11
    groups = [o for o in result.tree.objects if o.kind == ObjectKind.GROUP]
    assert len(groups) == 11 and all(g.children for g in groups)
    # Group 10 maps its child box (chOff 920,1676; chExt 702x460) onto 6870700,1600200 at
    # 1344613x604838 EMU; its first shape sits at child x=1525.
    group = next(g for g in groups if g.name == "Group 10")
    first = group.children[0]
    assert first.rect is not None
    assert first.rect.x == pytest.approx(6870700 + (1525 - 920) * 1344613 / 702)
    assert first.rect.w == pytest.approx(97 * 1344613 / 702)


def test_groupshape_deck_has_a_group() -> None:
    assert total_counts(deck("shp-groupshape.pptx"))["groups"] >= 1


def test_custom_geometry_deck_is_multi_slide_with_freeforms() -> None:
    path = deck("customGeo.pptx")
    result = inspect_structure(path)
    assert (result.gate.reason, result.gate.slides) == (GateReason.MULTIPLE_SLIDES, 48)
    assert total_counts(path)["freeforms"] > 0


def test_smartart_is_found() -> None:
    result = inspect_structure(deck("SmartArt.pptx"))
    assert result.tree is not None and result.tree.counts()["smartart"] == 1
    smartart = next(o for o in result.tree.walk() if o.kind == ObjectKind.SMARTART)
    assert smartart.rect is not None and smartart.rect.w > 0


def test_shp_shapes_holds_every_kind() -> None:
    counts = total_counts(deck("shp-shapes.pptx"))
    for key in ("connectors", "groups", "pictures", "tables", "charts", "smartart"):
        assert counts[key] >= 1, key


def test_pictures_and_background_fills() -> None:
    assert total_counts(deck("shp-picture.pptx"))["pictures"] >= 1
    with Package.open(deck("backgrounds.pptx")) as package:
        trees = [read_tree(package, ref.part) for ref in package.slides()]
    assert any(tree.background_image_sha256 for tree in trees)
    assert sum(tree.counts()["pictures"] for tree in trees) == 0


def test_charts_and_ole() -> None:
    assert total_counts(deck("bar-chart.pptx"))["charts"] == 1
    assert total_counts(deck("shp-access-chart.pptx"))["charts"] >= 1
    tree = inspect_structure(deck("shp-access-ole-object.pptx")).tree
    assert tree is not None and any(o.kind == ObjectKind.OLE for o in tree.walk())


def test_deck_without_slides() -> None:
    assert inspect_structure(deck("mst-placeholders.pptx")).gate.reason == GateReason.NO_SLIDES
