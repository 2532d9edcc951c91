"""The copy check's proof that a program never opened a visible input: every route to the
input's bytes is seen (so a copying program is still run with a decoy and flagged, in every
language), and a reference program, which never opens its figure, runs once."""

from __future__ import annotations

import mmap
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from refig_family_figure_to_code import execution
from refig_family_figure_to_code.execution import Execution, execute
from refig_family_figure_to_code.input_watch import InputWatch, kernel_reports_every_open
from refig_family_figure_to_code.warm import WarmInterpreter

pytestmark = pytest.mark.skipif(not kernel_reports_every_open(),
                                reason="the kernel does not report every open (Linux >= 6.5)")

TOOL = {"python": "python3", "r": "Rscript", "matlab": "octave", "latex": "xelatex"}


def need(language: str) -> None:
    if shutil.which(TOOL[language]) is None:
        pytest.skip(f"{TOOL[language]} is not installed (scripts/bootstrap.sh --test)")


def test_kernel_release_is_read() -> None:
    assert kernel_reports_every_open("6.5.0-21-generic")
    assert kernel_reports_every_open("6.18.44-fc-v1272")
    assert not kernel_reports_every_open("6.4.16")
    assert not kernel_reports_every_open("5.15.0-91-generic")
    assert not kernel_reports_every_open("unknown")


@pytest.fixture
def placed(tmp_path: Path) -> Iterator[tuple[InputWatch, Path]]:
    source = tmp_path / "source.png"
    source.write_bytes(b"\x89PNG figure bytes")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    watch = InputWatch.start(tmp_path)
    assert watch is not None
    watch.place(source, workspace / "figure.png")
    yield watch, workspace
    watch.close()


def _mmap(workspace: Path) -> None:
    with (workspace / "figure.png").open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, prot=mmap.PROT_READ)
    (workspace / "out.png").write_bytes(mapped[:])


def _proc_fd(workspace: Path) -> None:
    fd = os.open(workspace / "figure.png", os.O_PATH)  # a path handle: reads nothing itself
    try:
        (workspace / "out.png").write_bytes(Path(f"/proc/self/fd/{fd}").read_bytes())
    finally:
        os.close(fd)


def _in_a_mount_namespace(script: str) -> Callable[[Path], None]:
    """A route through a mount the program makes in a user and mount namespace of its own."""
    def route(workspace: Path) -> None:
        if shutil.which("unshare") is None:
            pytest.skip("no unshare here")
        done = subprocess.run(["unshare", "-Urm", "sh", "-c", script], cwd=workspace,
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"no mount namespace here: {done.stderr.strip()}")
    return route


#: Each reaches the input's bytes (or makes the input the output) without naming it plainly.
ROUTES: dict[str, Callable[[Path], object]] = {
    "open": lambda w: (w / "out.png").write_bytes((w / "figure.png").read_bytes()),
    "hard link, then open": lambda w: (os.link(w / "figure.png", w / "h.png"),
                                       (w / "h.png").read_bytes()),
    "hard link left as the output": lambda w: os.link(w / "figure.png", w / "out.png"),
    "renamed to the output": lambda w: os.rename(w / "figure.png", w / "out.png"),
    "symlink, then open": lambda w: (os.symlink("figure.png", w / "s.png"),
                                     (w / "s.png").read_bytes()),
    "/proc/self/fd": _proc_fd,
    "cp in a child process": lambda w: subprocess.run(["cp", "figure.png", "out.png"], cwd=w,
                                                      check=True),
    "mmap": _mmap,
    "deleted": lambda w: (w / "figure.png").unlink(),
    "bind mount": _in_a_mount_namespace("mkdir b && mount --bind . b && cat b/figure.png > o"),
    "overlay mount": _in_a_mount_namespace(
        "mkdir u w m && mount -t overlay overlay -o lowerdir=.,upperdir=u,workdir=w m "
        "&& cat m/figure.png > o"),
}


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_to_the_input_is_seen(route: str, placed: tuple[InputWatch, Path]) -> None:
    watch, workspace = placed
    assert watch.untouched()  # placing it is not touching it
    ROUTES[route](workspace)
    assert not watch.untouched()
    assert not watch.untouched()  # sticky


def test_looking_at_the_workspace_is_not_opening_the_input(
        placed: tuple[InputWatch, Path]) -> None:
    watch, workspace = placed
    os.stat(workspace / "figure.png")
    sorted(workspace.iterdir())
    os.chmod(workspace / "figure.png", 0o600)  # metadata only (refig's own hand-over chowns)
    os.utime(workspace / "figure.png")
    (workspace / "drawn.png").write_bytes(b"a picture of its own")
    assert watch.untouched()


def test_removing_the_workspace_is_refigs_own_unless_the_input_lives_on(
        placed: tuple[InputWatch, Path], tmp_path: Path) -> None:
    watch, workspace = placed
    watch.before_removal(workspace)
    shutil.rmtree(workspace)
    watch.after_removal()
    assert watch.untouched()
    # A second input kept alive by a link made outside its workspace (a stash for a later
    # program of a warm interpreter) is touched once its workspace is gone.
    other = tmp_path / "other"
    other.mkdir()
    watch.place(tmp_path / "source.png", other / "figure.png")
    os.link(other / "figure.png", tmp_path / "stash.png")
    watch.before_removal(other)
    shutil.rmtree(other)
    watch.after_removal()
    assert not watch.untouched()


#: Programs that reach the figure (``figure.png``) by one route each and save it as their
#: image. LaTeX can name a path only (no links or processes without shell escape).
COPIERS = {
    "python": {
        "open": "import shutil\nshutil.copyfile('figure.png', 'out.png')\n",
        "hard link": "import os, shutil\nos.link('figure.png', 'h.png')\n"
                     "shutil.copyfile('h.png', 'out.png')\n",
        "renamed": "import os\nos.rename('figure.png', 'out.png')\n",
        "symlink": "import os, shutil\nos.symlink('figure.png', 's.png')\n"
                   "shutil.copyfile('s.png', 'out.png')\n",
        "/proc/self/fd": "import os\nfd = os.open('figure.png', os.O_PATH)\n"
                         "data = open(f'/proc/self/fd/{fd}', 'rb').read()\n"
                         "open('out.png', 'wb').write(data)\n",
        "cp": "import subprocess\nsubprocess.run(['cp', 'figure.png', 'out.png'], check=True)\n",
        "mmap": "import mmap\nwith open('figure.png', 'rb') as f:\n"
                "    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\n"
                "open('out.png', 'wb').write(m[:])\n",
    },
    "r": {
        "open": "file.copy('figure.png', 'out.png')\n",
        "hard link": "file.link('figure.png', 'h.png')\nfile.copy('h.png', 'out.png')\n",
        "renamed": "file.rename('figure.png', 'out.png')\n",
        "symlink": "file.symlink('figure.png', 's.png')\nfile.copy('s.png', 'out.png')\n",
        "/proc/self/cwd": "file.copy('/proc/self/cwd/figure.png', 'out.png')\n",
        "cp": "system2('cp', c('figure.png', 'out.png'))\n",
    },
    "matlab": {
        "open": "fid = fopen('figure.png', 'r');\nd = fread(fid, Inf, 'uint8=>uint8');\n"
                "fclose(fid);\nfid = fopen('out.png', 'w');\nfwrite(fid, d);\nfclose(fid);\n",
        "hard link": "link('figure.png', 'h.png');\ncopyfile('h.png', 'out.png');\n",
        "renamed": "rename('figure.png', 'out.png');\n",
        "symlink": "symlink('figure.png', 's.png');\nfid = fopen('s.png', 'r');\n"
                   "d = fread(fid, Inf, 'uint8=>uint8');\nfclose(fid);\n"
                   "fid = fopen('out.png', 'w');\nfwrite(fid, d);\nfclose(fid);\n",
        "/proc/self/cwd": "copyfile('/proc/self/cwd/figure.png', 'out.png');\n",
        "cp": "system('cp figure.png out.png');\n",
    },
    "latex": {
        "open": "\\documentclass{standalone}\n\\usepackage{graphicx}\n\\begin{document}\n"
                "\\includegraphics{figure.png}\n\\end{document}\n",
        "/proc/self/cwd": "\\documentclass{standalone}\n\\usepackage{graphicx}\n"
                          "\\begin{document}\n\\includegraphics{/proc/self/cwd/figure.png}\n"
                          "\\end{document}\n",
    },
}
#: The routes tried in the sandbox, with each language's interpreter: the watch sees every route
#: above without one (test_every_route_to_the_input_is_seen); here it must see them through the
#: sandbox's binds, from another process and another uid. Every route of COPIERS stays a
#: working copier (REFIG_ALL_COPIERS=1 runs them all, about 5 min on two cores).
SANDBOXED = {"python": ("open", "hard link", "/proc/self/fd", "cp"), "r": ("open",),
             "matlab": ("symlink",), "latex": ("/proc/self/cwd",)}
CASES = [(language, route) for language, routes in COPIERS.items() for route in routes
         if os.environ.get("REFIG_ALL_COPIERS") or route in SANDBOXED[language]]


@pytest.fixture(scope="module")
def figure(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("figure") / "figure.png"
    image = Image.new("RGB", (320, 240), "white")
    ImageDraw.Draw(image).rectangle((40, 40, 280, 200), fill=(30, 90, 200))
    image.save(path)
    return path


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every fresh sandboxed run, by the first word of its command."""
    started: list[str] = []
    real = execution.run_sandboxed

    def counted(argv, **kwargs):  # type: ignore[no-untyped-def]
        started.append(str(argv[0]))
        return real(argv, **kwargs)

    monkeypatch.setattr(execution, "run_sandboxed", counted)
    return started


@pytest.mark.slow
@pytest.mark.parametrize(("language", "route"), CASES)
def test_a_program_copying_the_figure_by_any_route_is_run_again_and_flagged(
        language: str, route: str, figure: Path, runs: list[str]) -> None:
    need(language)
    result = execute(COPIERS[language][route], language, inputs={"figure.png": figure})
    assert result.ok, result.log.decode()
    assert not result.inputs_unopened
    assert result.copied_input == "figure.png", result.log.decode()
    assert len(runs) == 2  # the run and its decoy run


#: Reference programs drawing their figure themselves from their data file (never opening the
#: figure; reading the data proves nothing).
DRAWERS = {
    "python": "import matplotlib.pyplot as plt\nys = open('data.txt').read().split()\n"
              "plt.plot([float(y) for y in ys], 'g-')\n",
    "r": "plot(scan('data.txt'), type = 'l', col = 'green')\n",
    "matlab": "figure;\nplot(load('data.txt'), 'g-');\n",
    "latex": "\\documentclass[tikz]{standalone}\n\\begin{document}\n\\begin{tikzpicture}\n"
             "\\input{data.txt}\n\\end{tikzpicture}\n\\end{document}\n",
}
DATA = {"python": "1\n3\n2\n", "r": "1\n3\n2\n", "matlab": "1\n3\n2\n",
        "latex": "\\draw[green] (0,0) -- (1,2) -- (2,1);\n"}


def data_file(language: str, folder: Path) -> dict[str, Path]:
    path = folder / f"{language}-data.txt"
    path.write_text(DATA[language])
    return {"data.txt": path}


@pytest.mark.slow
@pytest.mark.parametrize("language", list(DRAWERS))
def test_a_reference_that_draws_its_figure_runs_once(language: str, tmp_path: Path,
                                                     runs: list[str]) -> None:
    need(language)
    data = data_file(language, tmp_path)
    drawn = execute(DRAWERS[language], language, inputs=data)
    assert drawn.png is not None, drawn.log.decode()
    own = tmp_path / "figure.png"
    own.write_bytes(drawn.png)  # its figure is exactly what it draws: a near copy, suspected
    runs.clear()
    result = execute(DRAWERS[language], language, inputs={**data, "figure.png": own})
    assert result.ok and result.inputs_unopened and result.copied_input is None
    assert b"never opened a visible input image (inotify)" in result.log
    assert len(runs) == 1


def _count_warm_runs(warm: WarmInterpreter, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    counted: list[int] = []
    real = warm._once

    def once(*args, **kwargs) -> Execution:  # type: ignore[no-untyped-def]
        counted.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(warm, "_once", once)
    return counted


#: A program that stashes the figure where the next program of the same interpreter finds it
#: (the shared /tmp) and draws something else; then one that hands in the stash unopened.
STASH = {
    "python": ("import shutil\nshutil.copyfile('figure.png', '/tmp/stash.png')\n"
               "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n",
               "import shutil\nshutil.copyfile('/tmp/stash.png', 'out.png')\n"),
    "r": ("file.copy('figure.png', '/tmp/stash.png')\nplot(1:2)\n",
          "file.copy('/tmp/stash.png', 'out.png')\n"),
    "matlab": ("copyfile('figure.png', '/tmp/stash.png');\nfigure;\nplot(1:2);\n",
               "copyfile('/tmp/stash.png', 'out.png');\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("language", ["python", "r", "matlab"])
def test_a_warm_interpreter_proves_references_until_an_input_is_opened(
        language: str, tmp_path: Path, runs: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    need(language)
    data = data_file(language, tmp_path)
    with WarmInterpreter(language) as warm:
        drawn = warm.execute(DRAWERS[language], inputs=data)
        assert drawn.png is not None, drawn.log.decode()
        own = tmp_path / "figure.png"
        own.write_bytes(drawn.png)
        warm_runs = _count_warm_runs(warm, monkeypatch)
        for _ in range(2):
            result = warm.execute(DRAWERS[language], inputs={**data, "figure.png": own})
            assert result.ok and result.inputs_unopened and result.copied_input is None
        assert (len(warm_runs), len(runs)) == (2, 0)  # no decoy run at all
        stash, hand_in = STASH[language]
        assert warm.execute(stash, inputs={"figure.png": own}).copied_input is None
        # Once a program opened an input, nothing later in this interpreter is proven: the
        # stash is handed in without opening the figure, and the decoy run (a fresh process,
        # which has no stash) shows it.
        smuggled = warm.execute(hand_in, inputs={"figure.png": own})
        assert not smuggled.inputs_unopened and smuggled.copied_input == "figure.png"
        reference = warm.execute(DRAWERS[language], inputs={**data, "figure.png": own})
        assert not reference.inputs_unopened and reference.copied_input is None
        assert len(runs) == 3  # each of the three (line plots on white, near the figure) ran
        # again, in a fresh process
