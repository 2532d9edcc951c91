"""scripts/put-on-path: after the README's two commands, a new login shell finds `uv` and
`refig`, so the commands refig prints (`refig view refig-demo`) run as printed.

Each test gives the script a fresh HOME, as a new user's, and starts a real login shell with
nothing of this process's environment but that HOME.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from refig import __version__

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "put-on-path"

pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or not (ROOT / ".venv" / "bin" / "refig").exists(),
    reason="needs bash and the workspace's .venv (uv sync)",
)


def _put(home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={"HOME": str(home), "PATH": os.environ["PATH"], **env},
    )


def _login(home: Path, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["env", "-i", f"HOME={home}", "TERM=dumb", "bash", "-lc", command],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_new_login_shell_finds_uv_and_refig(tmp_path: Path) -> None:
    if shutil.which("uv") is None:
        pytest.skip("uv is not on this process's PATH")
    before = _login(tmp_path, "refig --version")
    assert before.returncode != 0  # a new user's login shell: no refig yet
    done = _put(tmp_path)
    assert done.returncode == 0, done.stderr
    after = _login(tmp_path, "refig --version && uv --version")
    assert after.returncode == 0, after.stderr
    assert after.stdout.splitlines()[0] == f"refig {__version__}"
    assert (tmp_path / ".local" / "bin" / "refig").resolve() == (
        ROOT / ".venv" / "bin" / "refig"
    ).resolve()
    assert _put(tmp_path).returncode == 0  # again: nothing added twice
    assert (tmp_path / ".profile").read_text().count("put-on-path") == 1


def test_the_profile_bash_reads_is_the_one_written(tmp_path: Path) -> None:
    (tmp_path / ".bash_profile").write_text("export MINE=1\n")
    assert _put(tmp_path).returncode == 0
    assert "put-on-path" in (tmp_path / ".bash_profile").read_text()
    assert not (tmp_path / ".profile").exists()
    assert _login(tmp_path, "refig --version").returncode == 0


def test_without_writing_it_prints_the_one_line(tmp_path: Path) -> None:
    done = _put(tmp_path, REFIG_NO_PROFILE="1")
    assert done.returncode == 0 and not (tmp_path / ".profile").exists()
    line = done.stdout.strip()
    (tmp_path / ".profile").write_text(line + "\n")  # the user pastes it
    assert _login(tmp_path, "refig --version").returncode == 0


def test_a_file_that_is_not_a_link_is_left_alone(tmp_path: Path) -> None:
    mine = tmp_path / ".local" / "bin" / "refig"
    mine.parent.mkdir(parents=True)
    mine.write_text("#!/bin/sh\necho mine\n")
    done = _put(tmp_path)
    assert done.returncode == 0 and "left alone" in done.stderr
    assert mine.read_text() == "#!/bin/sh\necho mine\n"
