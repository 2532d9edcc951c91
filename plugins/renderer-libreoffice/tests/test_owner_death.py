"""Converters die with their owner, and the next renderer clears what a killed one left.

The first test kills a real ``refig check`` with SIGKILL while a real LibreOffice converts its
slides, then looks for ``soffice.bin`` and for the renderer's scratch directory; the others drive
the reaper directly with processes standing in for a dead owner and a stray converter.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Emu
from refig_renderer_libreoffice.scratch import OWNER_FILE, PREFIX, abandoned, reap_abandoned

REFIG = Path(sys.executable).with_name("refig")


def wait_for(condition, seconds: float) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` pass (a bound, not a measurement)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def slides(folder: Path, count: int) -> list[Path]:
    folder.mkdir()
    paths = []
    for index in range(count):
        prs = Presentation()
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        for row in range(6):
            box = slide.shapes.add_shape(
                MSO_SHAPE.ROUNDED_RECTANGLE, Emu(400_000 + 1_200_000 * row), Emu(900_000),
                Emu(1_000_000), Emu(600_000))
            box.text = f"slide {index} box {row}"
        path = folder / f"s{index:03}.pptx"
        prs.save(path)
        paths.append(path)
    return paths


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
@pytest.mark.skipif(not REFIG.exists(), reason="the refig command is not installed")
def test_sigkill_of_refig_check_takes_its_converters_along(tmp_path: Path, converters) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    files = slides(tmp_path / "slides", 128)  # batches of 32: seconds of work each
    owner = subprocess.Popen(
        [str(REFIG), "check", "-q", "--json", *map(str, files)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(lambda: converters(tmp), 120), "LibreOffice never started"
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
        # The guard sees its lifeline close and kills the group at once, not when the batch is
        # done (without it, soffice.bin converted on for the rest of its batch).
        assert wait_for(lambda: not converters(tmp), 3), converters(tmp)
    finally:
        owner.kill()
    left = list(tmp.glob(f"{PREFIX}*"))
    assert left and all(abandoned(path) for path in left)  # the killed run could not clean up
    done = subprocess.run([str(REFIG), "check", "-q", "--json", str(files[0])], env=env,
                          capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert list(tmp.glob(f"{PREFIX}*")) == []  # the next run cleared it, and its own


def test_the_reaper_kills_a_stray_converter_of_a_dead_owner_and_removes_its_directory(
    tmp_path: Path,
) -> None:
    gone = subprocess.Popen(["true"])  # a pid that no longer runs
    gone.wait()
    stale = tmp_path / f"{PREFIX}stale"
    (stale / "profile-1").mkdir(parents=True)
    (stale / OWNER_FILE).write_text(f"{gone.pid} 1\n")
    stray = subprocess.Popen(  # stands in for soffice.bin: it names the profile on its command line
        [sys.executable, "-c", "import time; time.sleep(300)", f"-env:UserInstallation=file://{stale}/profile-1"],
        start_new_session=True,
    )
    mine = tmp_path / f"{PREFIX}mine"
    mine.mkdir()
    (mine / OWNER_FILE).write_text(f"{os.getpid()} {_start_time()}\n")
    try:
        cmdline = Path(f"/proc/{stray.pid}/cmdline")
        assert wait_for(lambda: str(stale).encode() in cmdline.read_bytes(), 30)  # exec'd
        assert reap_abandoned(tmp_path) == [stale]
        assert stray.wait(timeout=30) == -signal.SIGKILL
        assert not stale.exists() and mine.is_dir()  # a live owner's directory is left alone
    finally:
        stray.kill()


def test_a_reused_pid_is_not_taken_for_the_owner(tmp_path: Path) -> None:
    path = tmp_path / f"{PREFIX}reused"
    path.mkdir()
    (path / OWNER_FILE).write_text(f"{os.getpid()} 0\n")  # our pid, another start time
    assert abandoned(path)
    (path / OWNER_FILE).write_text(f"{os.getpid()} {_start_time()}\n")
    assert not abandoned(path)


def _start_time() -> str:
    return Path(f"/proc/{os.getpid()}/stat").read_text().rsplit(")", 1)[1].split()[19]
