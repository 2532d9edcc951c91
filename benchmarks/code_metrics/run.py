"""What FigCodeBench's image metrics cost per program in refig, as ratios measured in one run.

Figures are drawn with matplotlib at the release's 300 dpi (8 x 6 inches, 2400 x 1800 px); each
is compared with a perturbed copy (other colours, shifted data). Timed on one core, per pair:

* ``base``: PSNR, SSIM and CIEDE2000 at 256 px without LPIPS (the baseline);
* ``lpips256``: the same with LPIPS (numpy AlexNet), the image-metric columns as refig computes
  them by default;
* ``fcf1024``: the four metrics again at 1024 px, FCF's inputs (timed alone: in the metric the
  images are decoded once for both sizes, so a program costs a little less than the sum).

The projection multiplies the per-program cost by the release's 6,194 programs on two cores.

    uv run python benchmarks/code_metrics/run.py --pairs 6 --repeats 2
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
        for side, (colours, shift) in enumerate(((("C0", "C1", "C2"), 0.0),
                                                 (("C3", "C4", "C5"), 0.7))):
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
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as one evaluation worker
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from refig_metric_code.pixels import FCF_SIDE, pixel_scores
    from refig_metric_image.perceptual import Lpips

    class Off(Lpips):
        """LPIPS that reports itself unavailable: the baseline without it."""

        def distance01(self, a, b):  # type: ignore[no-untyped-def]
            from refig_metric_image.perceptual import LpipsUnavailable

            raise LpipsUnavailable("off for the baseline")

    with tempfile.TemporaryDirectory() as scratch:
        made = figures(Path(scratch), args.pairs)
        lpips, off = Lpips(), Off()
        lpips.model()  # loaded before timing
        cases = {"base": (off, 256), "lpips256": (lpips, 256), "fcf1024": (lpips, FCF_SIDE)}
        seconds = dict.fromkeys(cases, 0.0)
        names = list(cases)
        for repeat in range(args.repeats):
            # interleaved, and the order turned each repeat: the same machine state for all
            for name in names[repeat % 3:] + names[:repeat % 3]:
                model, side = cases[name]
                started = time.process_time()
                for reference, generated in made:
                    pixel_scores(reference, generated, model, side)
                seconds[name] += time.process_time() - started
    per = {name: s / (args.pairs * args.repeats) for name, s in seconds.items()}
    program = per["lpips256"] + per["fcf1024"]
    row = {"pairs": args.pairs, "repeats": args.repeats,
           "cpu_s_per_pair": {k: round(v, 3) for k, v in per.items()},
           "lpips256_over_base": round(per["lpips256"] / per["base"], 2),
           "fcf1024_over_base": round(per["fcf1024"] / per["base"], 2),
           "program_over_base": round(program / per["base"], 2),
           "release_minutes_on_two_cores": round(program * RELEASE_PROGRAMS / 2 / 60, 1)}
    print(json.dumps(row, indent=1))


if __name__ == "__main__":
    main()
