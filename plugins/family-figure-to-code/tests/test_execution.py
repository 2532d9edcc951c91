"""Real programs in all four languages, run through the real toolchains in the sandbox."""

from __future__ import annotations

import io
import shutil
from types import ModuleType

import pytest
from PIL import Image
from refig_family_figure_to_code.execution import Limits, execute
from refig_family_figure_to_code.installs import police
from refig_family_figure_to_code.languages import Language

LANGUAGES = ["python", "r", "matlab", "latex"]
TOOL = {"python": "python3", "r": "Rscript", "matlab": "octave", "latex": "xelatex"}


def need(language: str) -> None:
    if language != "python" and shutil.which(TOOL[language]) is None:
        pytest.skip(f"{TOOL[language]} is not installed (scripts/bootstrap.sh --test)")


@pytest.mark.parametrize("language", LANGUAGES)
def test_reference_program_makes_an_image_of_the_target_size(
        language: str, kit: ModuleType) -> None:
    need(language)
    result = execute(kit.REFERENCE[language], language, width=480, height=360)
    assert result.error is None, result.log.decode()
    image = Image.open(io.BytesIO(result.png))
    assert abs(image.width - 480) <= 2
    if language != "latex":  # a standalone page is as tall as its picture
        assert abs(image.height - 360) <= 2
    pixels = image.convert("RGB").getcolors(1 << 20)
    assert len(pixels) > 10  # something was drawn


@pytest.mark.parametrize("language", LANGUAGES)
def test_syntax_error_is_typed_with_the_interpreter_message(language: str, kit: ModuleType) -> None:
    need(language)
    result = execute(kit.SYNTAX_ERROR[language], language)
    assert result.error is not None and result.error.kind == "syntax_error", result.log.decode()
    assert result.error.message and result.png is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_runtime_error_is_typed(language: str, kit: ModuleType) -> None:
    need(language)
    result = execute(kit.RUNTIME_ERROR[language], language)
    assert result.error is not None and result.error.kind == "runtime_error", result.log.decode()
    expected = {"python": "undefined_name", "r": "undefined_name", "matlab": "undefined_name",
                "latex": "missing.dat"}[language]
    assert expected in result.error.message


@pytest.mark.parametrize("language", LANGUAGES)
def test_deadline_kills_a_program_that_never_ends(language: str, kit: ModuleType) -> None:
    need(language)
    result = execute(kit.LOOP_FOREVER[language], language, limits=Limits(deadline_s=3))
    assert result.error is not None and result.error.kind == "timeout"


@pytest.mark.parametrize("language", ["python", "r", "matlab"])
def test_a_program_that_draws_nothing_has_no_image(language: str, kit: ModuleType) -> None:
    need(language)
    result = execute(kit.NO_IMAGE[language], language)
    assert result.error is not None and result.error.kind == "no_image", result.log.decode()


@pytest.mark.parametrize("call", ["exportgraphics(gcf, 'a.png');", "tiledlayout(2, 1);",
                                  "geoplot([47 48], [8 9]);"])
def test_matlab_only_calls_fail_as_toolchain_missing_under_octave(call: str) -> None:
    need("matlab")
    result = execute(f"figure;\nplot(1:3);\n{call}\n", "matlab")
    assert result.error is not None and result.error.kind == "toolchain_missing"
    assert "MATLAB-only" in result.error.message


def test_missing_toolchain_is_typed(monkeypatch: pytest.MonkeyPatch, kit: ModuleType) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    result = execute(kit.REFERENCE["r"], "r")
    assert result.error is not None and result.error.kind == "toolchain_missing"
    assert "r-base-core" in result.error.message


def test_oversized_program_is_refused_before_running() -> None:
    result = execute("x = 1\n" * 300_000, "python")
    assert result.error is not None and result.error.kind == "too_large"


def test_a_huge_image_is_too_large() -> None:
    program = ("import matplotlib.pyplot as plt\nfig = plt.figure(figsize=(55, 50), dpi=100)\n"
               "fig.savefig('big.png')\n")
    result = execute(program, "python")
    assert result.error is not None and result.error.kind == "too_large", result.log.decode()


def test_network_is_unreachable_and_memory_capped() -> None:
    import socket

    from refig.running.sandbox import bwrap_works

    if not bwrap_works():
        pytest.skip("bubblewrap cannot create namespaces here: no network isolation to test")
    with socket.create_server(("127.0.0.1", 0)) as server:  # reachable from this process
        port = server.getsockname()[1]
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        program = ("import socket, matplotlib.pyplot as plt\n"
                   f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
                   "    print('CONNECTED')\nexcept OSError as exc:\n    print('BLOCKED', exc)\n"
                   "try:\n    block = bytearray(3 << 30)\n    print('ALLOCATED')\n"
                   "except MemoryError:\n    print('CAPPED')\nplt.plot([1, 2])\n")
        result = execute(program, "python", limits=Limits(memory_mb=1024))
    assert result.ok, result.log.decode()
    assert b"BLOCKED" in result.log and b"CONNECTED" not in result.log
    assert b"CAPPED" in result.log


@pytest.mark.parametrize(("language", "program"), [
    ("python", "!pip install seaborn\nimport os\nos.system('pip install numpy')\n"
               "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"),
    ("r", "if (!require('ggplot2')) install.packages(c('ggplot2', 'dplyr'), repos = 'x')\n"
          "plot(1:3)\n"),
    ("matlab", "pkg install -forge statistics\nfigure;\nplot(1:3);\n"),
])
def test_package_installation_is_removed_and_logged(language: str, program: str) -> None:
    need(language)
    assert police(program, Language(language)).removed
    result = execute(program, language)
    assert result.ok, result.log.decode()
    assert b"refig: removed package installation" in result.log


def test_a_program_that_saves_its_own_image_is_read_and_a_copied_input_is_named(tmp_path) -> None:
    figure = tmp_path / "figure.png"
    Image.new("RGB", (64, 48), (10, 200, 30)).save(figure)
    program = "import shutil\nshutil.copyfile('figure.png', 'out.png')\n"
    result = execute(program, "python", inputs={"figure.png": figure})
    assert result.ok and result.source == "file:out.png"
    assert result.copied_input == "figure.png"


def test_the_matlab_only_list_holds_for_the_installed_octave() -> None:
    """Every call documented as MATLAB-only is indeed missing from this Octave."""
    import subprocess

    from refig_family_figure_to_code.toolchains import MATLAB_ONLY

    need("matlab")
    names = ",".join(f"'{name}'" for name in MATLAB_ONLY)
    probe = subprocess.run(
        ["octave", "--no-gui", "--no-window-system", "--norc", "--quiet", "--eval",
         f"n = {{{names}}}; for i = 1:numel(n), printf('%s=%d\\n', n{{i}}, exist(n{{i}})); end"],
        capture_output=True, text=True, timeout=120)
    found = dict(line.split("=") for line in probe.stdout.split())
    assert set(found) == set(MATLAB_ONLY)
    assert {name for name, code in found.items() if code != "0"} == set()


def test_a_corrupt_image_the_program_saved_is_no_image() -> None:
    result = execute("open('out.png', 'wb').write(b'not a png at all')\n", "python")
    assert result.error is not None and result.error.kind == "no_image"
    assert "not a readable image" in result.error.message
