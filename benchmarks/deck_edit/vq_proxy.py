"""The deck-metrics VQ of identity (the original returned) and the oracle (the target) on every
generated recipe, under the current definition and the previous one (mean SSIM of the edited
slides against the target's over the selected slides, mapped from [0.8, 1] onto [0, 5]): the
previous one gave the untouched original a high VQ by construction.

    uv run python benchmarks/deck_edit/vq_proxy.py [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from refig_family_deck_edit.context import DeckContext, build_context
from refig_family_deck_edit.inspect_deck import inspect_deck
from refig_family_deck_edit.judges.proxy import SSIM_FLOOR, _half_up, vq_proxy
from refig_family_deck_edit.references import reference_pages
from refig_family_deck_edit.sample.build import generate_case
from refig_family_deck_edit.sample.recipes import NAMES
from refig_family_deck_edit.selection import ssim


def previous_vq(context: DeckContext) -> int:
    """The definition before this one, kept here only to measure it against."""
    pages = context.pages
    pairs = [(pages["target"][s.target - 1], pages["prediction"][s.prediction - 1])
             for s in context.selection.slides if s.target and s.prediction]
    if not pairs:
        return 0
    mean = sum(ssim(a, b) for a, b in pairs) / len(pairs)
    return _half_up(5 * min(1.0, max(0.0, (mean - SSIM_FLOOR) / (1 - SSIM_FLOOR))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for index, recipe in enumerate(NAMES):
            case = generate_case(args.seed, index)
            original, target = Path(tmp, f"{index}-o.pptx"), Path(tmp, f"{index}-t.pptx")
            original.write_bytes(case.original)
            target.write_bytes(case.target)
            row = {"recipe": recipe}
            for who, path in (("identity", original), ("oracle", target)):
                context = build_context(inspect_deck(path).structure,
                                        {"deck": original, "target": target},
                                        reference_pages(path), reference_pages=reference_pages)
                row[who] = {"previous": previous_vq(context), "now": vq_proxy(context)[0]}
            rows.append(row)
    means = {who: {k: statistics.mean(r[who][k] for r in rows) for k in ("previous", "now")}
             for who in ("identity", "oracle")}
    if args.json:
        print(json.dumps({"rows": rows, "means": means}, indent=1))
        return
    for row in rows:
        print(f"{row['recipe']:32} identity {row['identity']['previous']} -> "
              f"{row['identity']['now']}   oracle {row['oracle']['previous']} -> "
              f"{row['oracle']['now']}")
    for who, mean in means.items():
        print(f"{who}: mean VQ {mean['previous']:.2f} before, {mean['now']:.2f} now")


if __name__ == "__main__":
    main()
