"""Batch isolation of a file that hangs or crashes LibreOffice.

No real deck makes LibreOffice hang on demand, so these tests run the converter against a
stand-in ``soffice``: a real executable that converts like LibreOffice (in order, one PDF per
input, a helper child process alive meanwhile, its pid logged to ``helpers.log``) but hangs on
a file containing ``HANG`` and dies on one containing ``CRASH``. It logs the inputs of every run
to ``runs.log`` beside itself.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

from refig.plugin import SandboxPolicy
from refig_renderer_libreoffice.confinement import Confinement
from refig_renderer_libreoffice.convert import Converter, Profile

#: The stand-in lives in the test's folder, which a sandbox would hide: it runs unconfined.
UNCONFINED = Confinement(SandboxPolicy(mode="none"))

STAND_IN = """#!{python}
import os, signal, subprocess, sys, time
args = sys.argv[1:]
outdir = args[args.index("--outdir") + 1]
inputs = [a for a in args if a.endswith(".pptx")]
with open(os.path.join(os.path.dirname(sys.argv[0]), "runs.log"), "a") as log:
    log.write(" ".join(os.path.basename(a)[:-5] for a in inputs) + "\\n")
helper = subprocess.Popen(["sleep", "300"])  # like soffice.bin beside oosplash
with open(os.path.join(os.path.dirname(sys.argv[0]), "helpers.log"), "a") as handle:
    handle.write(str(helper.pid) + "\\n")
for path in inputs:
    data = open(path, "rb").read()
    if b"HANG" in data:
        time.sleep(300)
    if b"CRASH" in data:
        os.kill(os.getpid(), signal.SIGSEGV)
    stem = os.path.splitext(os.path.basename(path))[0]
    with open(os.path.join(outdir, stem + ".pdf"), "wb") as pdf:
        pdf.write(b"%PDF-1.4\\n" + b"0" * 100 + b"\\n%%EOF\\n")
helper.kill()
"""


def stand_in(tmp_path: Path) -> str:
    script = tmp_path / "soffice"
    script.write_text(STAND_IN.format(python=sys.executable))
    script.chmod(0o755)
    return str(script)


def package(path: Path, content: bytes) -> Path:
    """A zip the renderer copies as it is (no relationships), holding ``content`` uncompressed
    where the stand-in finds it."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("marker.txt", content)
    return path


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except OSError:
        return False


def test_a_hanging_and_a_crashing_file_are_isolated(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    # 5 s without a new PDF: on a loaded machine the stand-in's interpreter alone can take more
    # than a second to start, and its first good file must not read as a hang
    converter = Converter(
        soffice=stand_in(tmp_path), workdir=work, timeout=5.0, confinement=UNCONFINED
    )
    contents = [b"ok", b"ok", b"HANG", b"ok", b"CRASH", b"ok"]
    items = []
    for index, content in enumerate(contents):
        items.append((index, package(tmp_path / f"in{index}.pptx", content)))
    results = converter.convert(items, Profile(tmp_path / "profile"))
    kinds = [r.kind if not isinstance(r, Path) else "pdf" for _, r in sorted(results.items())]
    assert kinds == ["pdf", "pdf", "timeout", "pdf", "render_failed", "pdf"]
    assert all(r.is_file() for r in results.values() if isinstance(r, Path))
    # Each bad file is tried in its batch, then alone; the files after it go on as a new batch.
    # So the hang costs its timeout twice, never once per file.
    runs = (tmp_path / "runs.log").read_text().splitlines()
    assert runs == ["0 1 2 3 4 5", "2", "3 4 5", "4", "5"]


def test_a_timeout_kills_the_helper_processes_too(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    converter = Converter(
        soffice=stand_in(tmp_path), workdir=work, timeout=0.5, confinement=UNCONFINED
    )
    path = package(tmp_path / "hang.pptx", b"HANG")
    results = converter.convert([(0, path)], Profile(tmp_path / "profile"))
    assert results[0].kind == "timeout"  # type: ignore[union-attr]
    # this test's helpers only: other work on the machine may run ``sleep 300`` too
    helpers = [int(line) for line in (tmp_path / "helpers.log").read_text().split()]
    assert helpers and [pid for pid in helpers if _sleeper(pid)] == []  # died with the group


def _sleeper(pid: int) -> bool:
    """True while ``pid`` is a live ``sleep 300`` (a stand-in's helper, not a reused pid)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return alive(pid) and handle.read() == b"sleep\x00300\x00"
    except OSError:
        return False
