"""What the pass is measured against, in the same run: the naive way, the warm LibreOffice floor,
and each command's import time.

* naive: :func:`render_throughput.run.naive_way` (one cold ``soffice --convert-to pdf`` per file,
  the same PDF to PNG, gate and tree), and OCR of the source for every artifact (no cache).
* floor: ``workers`` warm LibreOffice processes (profiles made beforehand) converting a batch of
  one-slide decks each, minus the same processes converting one deck: LibreOffice's own cost
  per slide once started, at the concurrency the pass uses.
* import time: ``python -X importtime`` of the ``refig`` command, summed over top-level imports.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from refig.plugin import SandboxPolicy
from refig_renderer_libreoffice.confinement import Confinement
from refig_renderer_libreoffice.convert import Converter, Profile
from refig_renderer_libreoffice.renderer import find_soffice
from refig_toolkit_imaging.ocr import read_text


def _render_benchmark() -> Any:
    """benchmarks/render_throughput/run.py, whose naive way this benchmark reuses."""
    path = Path(__file__).resolve().parents[1] / "render_throughput" / "run.py"
    spec = importlib.util.spec_from_file_location("render_throughput_run", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HEAVY = ("scipy", "skimage", "litellm", "ray", "onnxruntime", "torch")


def naive_render(files: list[Path], work: Path, width: int) -> dict[str, float]:
    """Gate + tree + one cold soffice per file + PDF to PNG, sequentially; with its CPU seconds
    (this process's and LibreOffice's), which are the same however many run at once."""
    work.mkdir(parents=True, exist_ok=True)
    cpu = time.process_time() + children_cpu()
    result = _render_benchmark().naive_way(files, work, width)
    return result | {"cpu_seconds": time.process_time() + children_cpu() - cpu}


def naive_ocr(sources: list[Path], max_side: int) -> float:
    """Wall seconds per artifact of OCR without a cache: the source read again for each."""
    read_text(sources[0], max_side=max_side)  # the engine loads once, as in a real pass
    started = time.perf_counter()
    for source in sources:
        read_text(source, max_side=max_side)
    return (time.perf_counter() - started) / len(sources)


def warm_floor(files: list[Path], workers: int) -> dict[str, float]:
    """Seconds per slide of warm LibreOffice processes, start-up excluded (see the module)."""
    with tempfile.TemporaryDirectory(prefix="refig-bench-floor-") as tmp:
        work = Path(tmp)
        # the floor is LibreOffice's own cost: unconfined, so the sandbox's shows against it
        converter = Converter(soffice=find_soffice(), workdir=work, timeout=120,
                              confinement=Confinement(SandboxPolicy(mode="none")))
        profiles = [Profile(work / f"profile-{index}") for index in range(workers)]
        shares = [list(enumerate(files))[index::workers] for index in range(workers)]

        def parallel(batches: list[list[tuple[int, Path]]]) -> tuple[float, float]:
            started, cpu = time.perf_counter(), children_cpu()
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(converter.run_batch, batches, profiles))
            return time.perf_counter() - started, children_cpu() - cpu

        parallel([share[:1] for share in shares])  # make the profiles
        start_up, start_up_cpu = parallel([share[:1] for share in shares])
        whole, whole_cpu = parallel(shares)
    slides = max(1, len(files) - workers)
    return {"slides": len(files), "workers": workers, "start_up_seconds": start_up,
            "batch_seconds": whole, "seconds_per_slide": max(0.0, whole - start_up) / slides,
            "cpu_seconds_per_slide": max(0.0, whole_cpu - start_up_cpu) / slides}


def children_cpu() -> float:
    """CPU seconds of the children this process waited for (LibreOffice, through its guard)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell: without ``PYTHONDONTWRITEBYTECODE``, which some
    sandboxes set (this one does) and which makes every start compile every module again; a
    user's Python writes the bytecode on the first command and reads it from then on."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | extra


def import_time(refig: str, *argv: str, cold: bool = False) -> dict[str, Any]:
    """Total import time (s) of ``refig argv`` and the heavy packages it imported: with the
    bytecode cached (run once before, as every command after a user's first), or ``cold``:
    every module compiled from source (an empty bytecode cache: a fresh clone's first start)."""
    with tempfile.TemporaryDirectory(prefix="refig-bench-pyc-") as empty:
        if cold:
            options, env = ["-X", f"pycache_prefix={empty}"], user_env(PYTHONDONTWRITEBYTECODE="1")
        else:
            options, env = [], user_env()
            subprocess.run([refig, *argv], capture_output=True, env=env, check=False)
        done = subprocess.run([sys.executable, *options, "-X", "importtime", refig, *argv],
                              capture_output=True, text=True, env=env, check=False)
    total, heavy = 0, set()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|", 2)
        if not name.startswith("  ") and name.strip() and cumulative.strip().isdigit():
            total += int(cumulative)
        package = name.strip().split(".")[0]
        if package in HEAVY:
            heavy.add(package)
    return {"command": " ".join(["refig", *argv]), "bytecode": "compiled" if cold else "cached",
            "import_seconds": total / 1e6, "heavy": sorted(heavy), "exit_code": done.returncode}
