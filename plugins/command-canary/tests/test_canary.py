"""``refig canary`` on this machine: the golden sets pass as installed, fail when LibreOffice
sees no fonts (saying which are missing), and a missing interpreter is skipped, never passed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from refig.cli import run as refig
from refig_command_canary import GoldenDocument, GoldenSet
from refig_command_canary.checking import PageResult, SetOutcome, compare_page, run_set
from refig_command_canary.environment import FONTS, Differences, differences

REFIG = str(Path(sys.executable).parent / "refig")
EMPTY_FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><cachedir>{cache}</cachedir></fontconfig>
"""


@pytest.fixture(scope="module")
def canary_json() -> list[dict]:
    """``refig canary --json`` over every installed family, once: one deck conversion for the
    golden slides and one run of each golden program."""
    done = subprocess.run([REFIG, "canary", "--json"], capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_the_golden_sets_pass_on_this_machine(canary_json):
    by_set = {found["set"]: found for found in canary_json}
    assert set(by_set) == {"slides", "programs"}
    assert by_set["slides"]["families"] == ["deck-edit", "figure-to-slide"]
    assert [p["page"] for p in by_set["slides"]["pages"]] == [1, 2, 3, 4]  # one deck, 4 pages
    for found in canary_json:
        assert found["passed"], found
        assert not found["failures"]
        for page in found["pages"]:
            # identical where deterministic; a missing interpreter is skipped with its fix
            assert page["status"] == "identical" or (
                page["status"] == "skipped" and "install" in page["detail"]), page


def test_no_fonts_fails_the_slides_naming_what_is_missing(tmp_path):
    config = tmp_path / "fonts.conf"
    config.write_text(EMPTY_FONTCONFIG.format(cache=tmp_path / "fc-cache"), encoding="utf-8")
    env = os.environ | {"FONTCONFIG_FILE": str(config), "COLUMNS": "200"}
    done = subprocess.run([REFIG, "canary", "--family", "figure-to-slide"], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "fonts missing: Carlito, Caladea, Noto Sans CJK" in done.stdout
    assert "slides: FAILED" in done.stdout


def test_a_missing_interpreter_is_skipped_with_its_install_fix(monkeypatch, tmp_path):
    folder = Path(__file__).parents[2] / "family-figure-to-code" / "src" / \
        "refig_family_figure_to_code" / "canary"
    monkeypatch.setenv("PATH", str(tmp_path))  # no Rscript to be found
    golden = GoldenSet(name="r-only", folder=folder, renderer="program",
                       documents=(GoldenDocument("plot_r.R", "R"),))
    outcome = run_set(golden)
    [page] = outcome.pages
    assert page.status == "skipped" and not page.passed
    assert "apt-get install" in page.detail and "r-base-core" in page.detail


def _picture(path: Path, shift: int = 0) -> Path:
    image = Image.new("RGB", (64, 48), "white")
    ImageDraw.Draw(image).rectangle((10 + shift, 10, 40 + shift, 30), fill="navy")
    image.save(path)
    return path


def test_pages_compare_by_pixels_then_by_the_documents_ssim_bound(tmp_path):
    expected = _picture(tmp_path / "expected.png")
    same = tmp_path / "same.png"
    Image.open(expected).save(same, optimize=True)  # other PNG bytes, the same pixels
    moved = _picture(tmp_path / "moved.png", shift=1)
    exact = GoldenDocument("a.pptx", "x")
    loose = GoldenDocument("a.pptx", "x", min_ssim=0.5)
    strict = GoldenDocument("a.pptx", "x", min_ssim=0.999)
    assert compare_page(exact, 0, same, expected).status == "identical"
    assert compare_page(exact, 0, moved, expected).status == "differs"
    assert compare_page(loose, 0, moved, expected).status == "similar"
    result = compare_page(strict, 0, moved, expected)
    assert result.status == "differs" and "< 0.999" in result.detail
    assert compare_page(exact, 0, moved, tmp_path / "none.png").detail.endswith("--update")
    with pytest.raises(ValueError):
        GoldenDocument("a.pptx", "x", min_ssim=1.5)


def test_a_missing_required_font_fails_and_versions_are_said_not_failed():
    was = {"libreoffice": "LibreOffice 7.4.7.2 40(Build:2)",
           FONTS: "Carlito, Caladea, Noto Sans CJK SC",
           "program": "python: 3.11.7 matplotlib 3.9.2; r: R 4.2.2"}
    same = differences(was, was, ("Carlito", "Noto Sans CJK"))
    assert not same.failures and not same.versions and not same.notes
    # another Debian build of the same LibreOffice, another release of Python: said, not failed
    now = {"libreoffice": "LibreOffice 7.4.7.2 40(Build:2) Debian 4:7.4.7-1+deb12u9",
           FONTS: "Caladea, DejaVu Sans", "program": "python: 3.12.1 matplotlib 3.9.2"}
    said = differences(was, now, ("Carlito", "Noto Sans CJK"))
    assert said.failures == [
        "fonts missing: Carlito, Noto Sans CJK (fontconfig offers 2 families)"]
    assert said.versions == [
        "libreoffice: LibreOffice 7.4.7.2 40(Build:2) Debian 4:7.4.7-1+deb12u9 "
        "(expected LibreOffice 7.4.7.2 40(Build:2))",
        "program python: 3.12.1 matplotlib 3.9.2 (expected 3.11.7 matplotlib 3.9.2)"]
    assert "program r: not installed (expected R 4.2.2)" in said.notes


def _outcome(versions: list[str], status: str) -> SetOutcome:
    golden = GoldenSet(name="s", folder=Path("."), renderer="program",
                       documents=(GoldenDocument("a.py", "x"),))
    return SetOutcome(golden, {"program": "python: 3.12.1"},
                      pages=[PageResult(golden.documents[0], 0, status)],
                      differences=Differences(versions=versions))


def test_the_pixels_decide_and_a_failure_names_the_versions_that_differ():
    versions = ["program python: 3.12.1 (expected 3.11.7)"]
    assert _outcome(versions, "identical").verdict().passed  # another version, same pixels
    failed = _outcome(versions, "differs").verdict()
    assert not failed.passed
    assert failed.differs == ("a.py page 1 differs; versions differ: program python: 3.12.1 "
                              "(expected 3.11.7)")
    assert _outcome([], "differs").verdict().differs == "a.py page 1 differs"


def test_canary_of_a_family_without_one_is_a_usage_error(capsys):
    assert refig(["canary", "--family", "nope"]) == 2
