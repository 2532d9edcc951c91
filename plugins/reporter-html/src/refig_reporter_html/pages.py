"""What each HTML page shows, as plain data for the templates (no markup here)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from refig.plugin import Judgment, JudgmentStatus, Preference
from refig.plugin.analysis import Analysis, Outcome, Table, judge_labels
from refig.pptx import ObjectKind, ObjectTree

from refig_reporter_html.images import diff_overlay, web_png


def slug(identifier: str) -> str:
    """A file name for an id: readable, safe on every file system, and unique (hash suffix)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", identifier).strip("-.")[:60] or "item"
    return f"{readable}-{hashlib.sha1(identifier.encode()).hexdigest()[:8]}"


@dataclass
class Picture:
    """An image on a page: its path relative to the report root, and a caption."""

    src: str
    alt: str
    caption: str = ""


@dataclass
class JudgeView:
    """One judge's verdicts on one artifact: each repeat with per-axis scores and rationale."""

    judge: str
    mean_total: float | None
    repeats: list[Judgment] = field(default_factory=list)


@dataclass
class OutcomeView:
    """One configuration's result on a task page."""

    config: str
    config_href: str
    gate: str
    gate_detail: str
    render: Picture | None
    diff: Picture | None
    diff_share: float | None
    audit: list[tuple[str, int]]
    metrics: list[tuple[str, str]]
    judges: list[JudgeView]


def audit_counts(outcome: Outcome) -> list[tuple[str, int]]:
    """Native objects by kind, plus bound connectors, from the artifact's object tree."""
    tree = outcome.inspection.parsed(ObjectTree) if outcome.inspection is not None else None
    if tree is None:
        return []
    counts: Counter[str] = Counter()
    for obj in tree.walk():
        counts[obj.kind.value] += 1
        if obj.kind == ObjectKind.CONNECTOR and obj.start is not None and obj.end is not None:
            counts["bound connectors"] += 1
    if tree.background_image_sha256:
        counts["background picture"] += 1
    return sorted(counts.items())


class PageBuilder:
    """Copies pictures into the report and assembles each page's data."""

    def __init__(self, analysis: Analysis, out: Path):
        self.analysis = analysis
        self.data = analysis.data
        self.out = out
        self.judgments: dict[tuple[str, str], list[Judgment]] = defaultdict(list)
        for label, found in judge_labels(self.data).items():
            for j in found:
                self.judgments[(label, j.artifact_sha256)].append(j)
        self.votes: dict[str, list[Preference]] = defaultdict(list)
        for p in self.data.preferences:
            self.votes[p.task_id].append(p)

    def config_href(self, config_id: str, prefix: str = "") -> str:
        return f"{prefix}configs/{slug(config_id)}.html"

    def task_href(self, task_id: str, prefix: str = "") -> str:
        return f"{prefix}tasks/{slug(task_id)}.html"

    def _object(self, sha256: str | None, stem: str) -> Path | None:
        """Copy an object-store picture into ``img/`` as a web PNG; its path, or None."""
        if not sha256:
            return None
        source = self.data.store.objects.path(sha256)
        if not source.is_file():
            return None
        target = self.out / "img" / f"{stem}-{sha256[:16]}.png"
        return target if web_png(source, target) else None

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.out).as_posix()

    def task_page(self, task_id: str) -> dict[str, Any]:
        """Source, each configuration's rendering and overlay, audits, judges and votes."""
        data = self.data
        task = data.tasks.get(task_id)
        figure = task.input("figure") or task.input("deck") if task else None
        source_path = self._object(figure.sha256 if figure else None, "source")
        source = (
            Picture(f"../{self._rel(source_path)}", f"source figure of {task_id}")
            if source_path
            else None
        )
        views = []
        for config_id in data.config_order:
            outcome = data.outcomes.get((task_id, config_id))
            if outcome is None:
                continue
            views.append(self._outcome_view(outcome, source_path))
        votes = sorted(self.votes.get(task_id, []), key=lambda p: p.created_at)
        return {
            "task": task,
            "task_id": task_id,
            "cluster": data.cluster(task_id),
            "source": source,
            "outcomes": views,
            "votes": votes,
        }

    def _outcome_view(self, outcome: Outcome, source_path: Path | None) -> OutcomeView:
        data = self.data
        render = data.render(outcome.artifact)
        render_path = self._object(render.png_sha256 if render else None, "render")
        diff_pic, share = None, None
        if render_path is not None and source_path is not None:
            target = (
                self.out / "img" / f"diff-{source_path.stem[-16:]}-{render_path.stem[-16:]}.png"
            )
            share = diff_overlay(source_path, render_path, target)
            if share is not None:
                diff_pic = Picture(
                    f"../{self._rel(target)}",
                    f"difference overlay for {outcome.config_id}",
                    f"{100 * share:.1f}% of pixels differ",
                )
        judges = []
        for label, scores in self.analysis.judges.items():
            found = sorted(
                self.judgments.get((label, outcome.artifact or ""), []), key=lambda j: j.repeat
            )
            if not found:
                continue
            c = scores.config_index(outcome.config_id)
            t = scores.task_index(outcome.task_id)
            total = scores.total[c, t]
            judges.append(JudgeView(label, float(total) if np.isfinite(total) else None, found))
        metrics = [
            (f"{metric}/{name}", "—" if value.value is None else f"{value.value:g}")
            for (metric, name), value in sorted(
                data.metrics.get(outcome.artifact or "", {}).items()
            )
        ]
        return OutcomeView(
            config=outcome.config_id,
            config_href=self.config_href(outcome.config_id, "../"),
            gate=outcome.gate_reason or ("passed" if outcome.evaluated else "not evaluated"),
            gate_detail=outcome.gate_detail,
            render=Picture(f"../{self._rel(render_path)}", f"rendering by {outcome.config_id}")
            if render_path
            else None,
            diff=diff_pic,
            diff_share=share,
            audit=audit_counts(outcome),
            metrics=metrics,
            judges=judges,
        )

    def config_page(self, config_id: str) -> dict[str, Any]:
        """One configuration: its rows of each summary table and its per-task results."""
        data = self.data
        rows: list[tuple[Table, list[dict[str, Any]]]] = []
        for table in self.analysis.tables:
            if table.detail or table.empty:
                continue
            mine = [
                r
                for r in table.rows
                if config_id in (r.get("config"), r.get("treatment"), r.get("baseline"))
            ]
            if mine:
                rows.append((table, mine))
        tasks = []
        for task_id in data.task_order:
            outcome = data.outcomes.get((task_id, config_id))
            if outcome is None:
                continue
            totals = {}
            for label, scores in self.analysis.judges.items():
                value = scores.total[scores.config_index(config_id), scores.task_index(task_id)]
                totals[label] = float(value) if np.isfinite(value) else None
            tasks.append(
                {
                    "id": task_id,
                    "href": self.task_href(task_id, "../"),
                    "gate": outcome.gate_reason
                    or ("passed" if outcome.evaluated else "not evaluated"),
                    "totals": totals,
                    "turns": outcome.attempt.turns,
                    "cost": outcome.attempt.cost_usd,
                    "failed_judgments": sum(
                        j.status == JudgmentStatus.FAILED
                        for label in self.analysis.judges
                        for j in self.judgments.get((label, outcome.artifact or ""), [])
                    ),
                }
            )
        return {
            "config": data.configs.get(config_id),
            "config_id": config_id,
            "tables": rows,
            "tasks": tasks,
            "judges": list(self.analysis.judges),
        }
