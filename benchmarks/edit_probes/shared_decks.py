"""The slide probes with and without shared decks, against the render stage's call, in one run.

    uv run python benchmarks/edit_probes/shared_decks.py [--sources 8] [--per-source 10]
        [--rounds 2] [--caps 1 10 20 40]

The corpus of ``benchmarks/full_pass`` (``--sources`` medium ``sample`` figures, ``--per-source``
style slides each). Per source, in one process with warm offices, alternating the order each
round: the render stage's call (``libreoffice`` at 1600 px, first page, one call for the
source's files) and ``probe_many`` over the same files at each cap on a shared deck's pages
(``MAX_DECK_PAGES``; 1 puts every artifact in a deck of its own, as before decks were shared).
Printed: each way's wall seconds summed over the sources, over the render call's. The machine
is shared: compare the ratios of one run, not the seconds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zipfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "full_pass"))

from corpus import build_suite, make_run
from refig.plugin import RenderJob, make_plugin
from refig_metric_edit_probes import slides
from refig_toolkit_pptx import Package
from run import REFIG


def artifacts_by_source(run: Path, out: Path) -> list[list[Path]]:
    """The run's slides (its stored .pptx objects) copied to ``out``, grouped by slide size
    (the corpus gives each figure's slides its aspect)."""
    groups: dict[tuple[int, int], list[Path]] = defaultdict(list)
    for stored in sorted(run.glob("objects/*/*")):
        if not zipfile.is_zipfile(stored):
            continue
        copy = out / f"{stored.name}.pptx"
        copy.write_bytes(stored.read_bytes())
        with Package.open(copy) as package:
            groups[package.slide_size()].append(copy)
    return list(groups.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=8)
    parser.add_argument("--per-source", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--caps", type=int, nargs="+", default=[1, 10, 20, 40])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="refig-bench-decks-") as tmp:
        work = Path(tmp)
        build_suite(REFIG, work / "suite", args.sources, args.seed)
        make_run(work / "suite", work / "run", args.per_source, 2)
        (work / "files").mkdir()
        groups = artifacts_by_source(work / "run", work / "files")
        stage = make_plugin("renderer", "libreoffice", width=1600)
        probes = make_plugin("renderer", "libreoffice", width=800)

        def probe(cap: int) -> Callable[[list[Path]], object]:
            def run(files: list[Path]) -> object:
                slides.MAX_DECK_PAGES = cap
                return slides.probe_many([slides.Probed(f, [0]) for f in files], probes)
            return run

        ways: dict[str, Callable[[list[Path]], object]] = {
            "render": lambda files: stage.render([RenderJob(f) for f in files], work / "out")}
        ways |= {f"probes, {cap} pages a deck": probe(cap) for cap in args.caps}
        for renderer in (stage, probes):  # offices started before any timing
            renderer.render([RenderJob(groups[0][0])], work / "out")
        seconds: dict[str, float] = defaultdict(float)
        try:
            for index in range(args.rounds):
                order = list(ways) if index % 2 == 0 else list(ways)[::-1]
                for files in groups:
                    for name in order:
                        started = time.perf_counter()
                        ways[name](files)
                        seconds[name] += time.perf_counter() - started
                ratios = {k: round(v / seconds["render"], 2) for k, v in seconds.items()}
                print(f"after round {index + 1}: over the render call {ratios}", flush=True)
        finally:
            stage.close()
            probes.close()


if __name__ == "__main__":
    main()
