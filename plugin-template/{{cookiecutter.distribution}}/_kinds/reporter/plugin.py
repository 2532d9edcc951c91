"""Writes a CSV leaderboard: each configuration's mean judged total over its artifacts."""

import csv
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from statistics import mean
from typing import Any

from refig.plugin import Attempt, Judgment, JudgmentStatus, Reporter
from refig_toolkit_analysis import RunStore


class CsvLeaderboard(Reporter):
    """``leaderboard.csv`` with configuration, judged artifacts and mean total, best first."""

    def report(self, run_dir: Path, out: Path | None, options: Mapping[str, Any]) -> Path:
        store = RunStore.open(run_dir)
        config_of: dict[str, set[str]] = defaultdict(set)
        for attempt in store.iter(Attempt):
            if attempt.output("slide"):
                config_of[attempt.output("slide")].add(attempt.config_id)
        totals: dict[str, list[float]] = defaultdict(list)
        for judgment in store.iter(Judgment):
            if judgment.status is JudgmentStatus.OK and judgment.total is not None:
                for config in config_of.get(judgment.artifact_sha256, ()):
                    totals[config].append(judgment.total)
        target = (out or run_dir) / "leaderboard.csv"
        target.parent.mkdir(parents=True, exist_ok=True)
        rows = sorted(((c, len(v), mean(v)) for c, v in totals.items()), key=lambda r: -r[2])
        with target.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["configuration", "judgments", "mean_total"])
            writer.writerows((c, n, f"{m:.2f}") for c, n, m in rows)
        return target
