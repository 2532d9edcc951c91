"""What FigCodeBench's image metrics cost per program in refig, as ratios measured in one run.

Figures are drawn with matplotlib at the release's 300 dpi (8 x 6 inches, 2400 x 1800 px); each
is compared with a perturbed copy (other colours, shifted data), or, for ``identical``, with
itself saved again (other bytes, the same pixels). Each case computes what the ``code`` metric
does for a program: PSNR, SSIM, CIEDE2000 and LPIPS at 256 px and again at FCF's 1024 px. Timed
on one core, per program:

* ``plain`` (the baseline, the metric before the fast path): ``pixels.plain_scores`` at
  each size, both images decoded, resized and every metric computed from both;
* ``first``: the metric, the reference seen for the first time (its share is made and kept);
* ``cached``: the metric, the reference already prepared (another program of the same task);
* ``identical``: the metric on an image equal to its reference, first sight (the reference pass
  when a program reproduces its figure pixel for pixel).

The projection multiplies the per-program cost by the release's 6,194 programs on two cores.

    uv run python benchmarks/code_metrics/run.py --pairs 6 --repeats 2 [--cases identical]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

RELEASE_PROGRAMS = 987 + 600 + 1130 + 3477


def figures(folder: Path, pairs: int) -> list[tuple[Path, Path]]:
    """``pairs`` (reference, generated) figures at 300 dpi."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    made = []
    rng = np.random.default_rng(0)
    for index in range(pairs):
        x = np.linspace(0, 10, 40)
        series = [rng.normal(size=40).cumsum() for _ in range(3)]
        paths = []
        for side, (colours, shift) in enumerate(
            ((("C0", "C1", "C2"), 0.0), (("C3", "C4", "C5"), 0.7))
        ):
            fig, axes = plt.subplots(1, 2, figsize=(8, 6))
            for y, colour in zip(series, colours, strict=True):
                axes[0].plot(x, y + shift, color=colour, label=f"series {colour}")
                axes[1].bar(x[::8] + side * 0.3, np.abs(y[::8]) + shift, color=colour, width=0.3)
            axes[0].legend()
            axes[0].set_title(f"Figure {index}")
            path = folder / f"{index}-{side}.png"
            fig.savefig(path, dpi=300, bbox_inches="tight", facecolor="white")
            plt.close(fig)
            paths.append(path)
        made.append((paths[0], paths[1]))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--cases", nargs="+", default=["plain", "first", "cached", "identical"],
                        help="the cases to time (the ratios need plain)")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as one evaluation worker
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from PIL import Image
    from refig_metric_code import pixels
    from refig_metric_code.pixels import FCF_SIDE, SIDE, pixel_scores_at, plain_scores
    from refig_metric_image.perceptual import Lpips

    sides = (SIDE, FCF_SIDE)
    lpips = Lpips()
    lpips.model()  # loaded before timing

    def plain(reference: Path, generated: Path) -> None:
        for side in sides:
            plain_scores(reference, generated, side, lpips)

    def first(reference: Path, generated: Path) -> None:
        pixels._references.clear()
        pixel_scores_at(reference, generated, lpips, sides)

    def cached(reference: Path, generated: Path) -> None:
        pixel_scores_at(reference, generated, lpips, sides)

    with tempfile.TemporaryDirectory() as scratch:
        made = figures(Path(scratch), args.pairs)
        copies = []
        for reference, _ in made:
            copy = reference.with_name(f"{reference.stem}-again.png")
            Image.open(reference).save(copy, compress_level=1)  # other bytes, the same pixels
            copies.append((reference, copy))
        cases = {name: case for name, case in {
            "plain": (plain, made),
            "first": (first, made),
            "cached": (cached, made),
            "identical": (first, copies),
        }.items() if name in args.cases}
        seconds = dict.fromkeys(cases, 0.0)
        names = list(cases)
        for repeat in range(args.repeats):
            # interleaved, and the order turned each repeat: the same machine state for all
            for name in names[repeat % len(names) :] + names[: repeat % len(names)]:
                run, pairs = cases[name]
                for reference, generated in pairs:
                    if name == "cached":  # prepared by an earlier program of the task, untimed
                        pixels._references.clear()
                        pixel_scores_at(reference, generated, lpips, sides)
                    started = time.process_time()
                    run(reference, generated)
                    seconds[name] += time.process_time() - started
    per = {name: s / (args.pairs * args.repeats) for name, s in seconds.items()}
    row = {
        "pairs": args.pairs,
        "repeats": args.repeats,
        "cpu_s_per_program": {k: round(v, 3) for k, v in per.items()},
        "over_plain": ({k: round(v / per["plain"], 3) for k, v in per.items()}
                       if "plain" in per else None),
        "release_minutes_on_two_cores": {
            k: round(v * RELEASE_PROGRAMS / 2 / 60, 1) for k, v in per.items()
        },
    }
    print(json.dumps(row, indent=1))


if __name__ == "__main__":
    main()
