"""The machine's caches a program reads: the same image with them as without, and the format
that xelatex really loads is the uncompressed copy of the system's."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from refig.plugin import run_sandboxed
from refig_family_figure_to_code import machine_caches, toolchains
from refig_family_figure_to_code.capture import FIGCODEBENCH
from refig_family_figure_to_code.execution import execute, prepare, program_env
from refig_family_figure_to_code.languages import Language

TIKZ = ("\\documentclass[tikz,border=2pt]{standalone}\n\\begin{document}\n"
        "\\begin{tikzpicture}\\draw[blue,thick] (0,0) rectangle (2,1);"
        "\\node at (1,.5) {Fjord $x^2$};\\end{tikzpicture}\n\\end{document}\n")
FONTSPEC = ("\\documentclass[border=2pt]{standalone}\n\\usepackage{fontspec}\n"
            "\\setmainfont{DejaVu Sans}\n\\begin{document}\nEmber 42\n\\end{document}\n")


def _fresh_cache(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("REFIG_CACHE_DIR", str(folder))
    machine_caches._inflated.cache_clear()
    yield folder
    machine_caches._inflated.cache_clear()


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """refig's cache in a fresh folder, the inflated format forgotten before and after."""
    yield from _fresh_cache(tmp_path / "cache", monkeypatch)


@pytest.fixture(scope="module")
def real_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One fresh cache for the tests that run xelatex (the system's format inflated once)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from _fresh_cache(tmp_path_factory.mktemp("cache"), monkeypatch)


def fake_format(folder: Path, content: bytes, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = folder / "xelatex.fmt"
    path.write_bytes(gzip.compress(content))
    monkeypatch.setattr(machine_caches, "system_format", lambda: path)
    return path


def test_the_format_is_inflated_once_and_rebuilt_when_broken(
        own_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_format(tmp_path, b"format bytes " * 1000, monkeypatch)
    folder = machine_caches.uncompressed_formats()
    assert folder is not None and folder.is_relative_to(own_cache)
    inflated = folder / "xelatex.fmt"
    assert inflated.read_bytes() == b"format bytes " * 1000
    inflated.chmod(0o644)
    inflated.write_bytes(b"truncated")
    machine_caches._inflated.cache_clear()
    assert machine_caches.uncompressed_formats() == folder
    assert inflated.read_bytes() == b"format bytes " * 1000


def test_a_rebuilt_system_format_gets_its_own_folder(
        own_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system = fake_format(tmp_path, b"old", monkeypatch)
    old = machine_caches.uncompressed_formats()
    system.write_bytes(gzip.compress(b"new format"))
    new = machine_caches.uncompressed_formats()
    assert old is not None and new is not None and old != new
    assert (new / "xelatex.fmt").read_bytes() == b"new format"


def test_no_folder_for_a_format_that_is_not_gzip(
        own_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "xelatex.fmt"
    plain.write_bytes(b"W2TX not compressed")
    monkeypatch.setattr(machine_caches, "system_format", lambda: plain)
    assert machine_caches.uncompressed_formats() is None
    assert machine_caches.latex_caches()[0] == {}


def test_the_caches_can_be_hidden(tmp_path: Path) -> None:
    hidden = toolchains.launch(Language.LATEX, tmp_path, 640, 480, shared_caches=False)
    assert "TEXFORMATS" not in hidden.env
    assert machine_caches.FONTCONFIG_CACHE not in hidden.binds
    r_launch = toolchains.launch(Language.R, tmp_path, 640, 480)
    assert set(machine_caches.fontconfig_binds()) <= set(r_launch.binds)


def _has_font(family: str) -> bool:
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    listed = subprocess.run([fc_list, ":", "family"], capture_output=True, text=True, check=False)
    return family in listed.stdout


needs_xelatex = pytest.mark.skipif(shutil.which("xelatex") is None
                                   or machine_caches.system_format() is None,
                                   reason="xelatex is not installed (scripts/bootstrap.sh --test)")


@needs_xelatex
def test_sandboxed_xelatex_loads_the_uncompressed_format(real_cache: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="refig-program-") as scratch:
        prepared = prepare(Path(scratch), TIKZ, Language.LATEX, {}, FIGCODEBENCH)
        launch = toolchains.launch(Language.LATEX, prepared.workdir, 640, 480, FIGCODEBENCH)
        argv = (*launch.argv[:-1], "-recorder", launch.argv[-1])
        result = run_sandboxed(argv, workdir=prepared.workdir, deadline_s=60,
                               env=program_env(prepared.workdir, launch.env),
                               binds=launch.binds)
        assert result.exit_code == 0, result.stdout.decode()
        recorded = (prepared.workdir / "figure.fls").read_text()
    formats = machine_caches.uncompressed_formats()
    assert formats is not None and formats.is_relative_to(real_cache)
    assert f"INPUT {formats / 'xelatex.fmt'}\n" in recorded


@needs_xelatex
@pytest.mark.parametrize("document", [TIKZ, FONTSPEC], ids=["tikz", "fontspec"])
def test_the_same_image_with_the_caches_as_without(document: str, real_cache: Path) -> None:
    if document is FONTSPEC and not _has_font("DejaVu Sans"):
        pytest.skip("the DejaVu fonts are not installed (apt-get install fonts-dejavu-core)")
    hidden = execute(document, "latex", protocol=FIGCODEBENCH, shared_caches=False)
    shown = execute(document, "latex", protocol=FIGCODEBENCH)
    assert hidden.ok, hidden.log.decode()
    assert shown.png == hidden.png
