"""What each page shows, as plain data for the templates (no markup here).

Links are relative to the page, so the same pages work as a static folder and behind the viewer.
Image and file links name objects by hash (``files/<sha>``, ``img/thumb/<sha>.png``,
``img/diff/<source>-<result>.png``); :mod:`refig_reporter_html.site` answers them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from refig.plugin import Attempt, Judgment, JudgmentStatus
from refig_toolkit_analysis import Outcome, Table, format_number

from refig_reporter_html.fields import (
    family_of,
    input_shas,
    pages,
    render_log,
    source_sha,
    task_meta,
)
from refig_reporter_html.objects import VerifiedObjects, download_name
from refig_reporter_html.panels import Block, PanelInput, panels
from refig_reporter_html.rows import status_of
from refig_reporter_html.slugs import slug
from refig_reporter_html.snapshot import Snapshot
from refig_reporter_html.transcript import Conversation, conversation

#: Bytes of a transcript or calls file read for the conversation view.
MAX_TRANSCRIPT_READ = 32 << 20


@dataclass
class FileLink:
    """A download: the role, the saved name, the link and the size in bytes."""

    role: str
    name: str
    href: str
    size: int


@dataclass
class JudgeView:
    """One judge's verdicts on one artifact: each repeat with per-axis scores and rationale."""

    judge: str
    mean_total: float | None
    repeats: list[Judgment] = field(default_factory=list)


@dataclass
class SampleView:
    """One configuration's sample on a task page."""

    config: str
    anchor: str
    config_href: str
    status: str
    reason: str
    detail: str
    attempt: Attempt
    tries: list[Attempt]
    files: list[FileLink]
    source: str | None
    result: str | None
    diff: str | None
    panel_title: str
    panel: list[Block]
    #: The panel's blocks that decide the verdict, shown first and at full width.
    lead: list[Block]
    metrics: list[tuple[str, str]]
    judges: list[JudgeView]
    talk: Conversation


def file_href(sha: str, prefix: str = "../") -> str:
    return f"{prefix}files/{sha}"


class PageBuilder:
    """Assembles each page's data from one snapshot; records every file and image it links."""

    def __init__(self, snap: Snapshot, objects: VerifiedObjects):
        self.snap = snap
        self.data = snap.data
        self.objects = objects
        self.linked: set[str] = set()

    def _link(self, path: str, prefix: str = "../") -> str:
        self.linked.add(path)
        return prefix + path

    def config_href(self, config_id: str, prefix: str = "") -> str:
        return f"{prefix}configs/{slug(config_id)}.html"

    def task_href(self, task_id: str, prefix: str = "") -> str:
        return f"{prefix}tasks/{slug(task_id)}.html"

    # --- task page ------------------------------------------------------------------------------

    def task_page(self, task_id: str) -> dict[str, Any]:
        """Inputs, then each configuration's sample: pictures, files, panel, judges, transcript."""
        data = self.data
        task = data.tasks.get(task_id)
        source = source_sha(task)
        samples = [
            self._sample(outcome, source)
            for config_id in data.config_order
            if (outcome := data.outcomes.get((task_id, config_id))) is not None
        ]
        inputs = []
        if task is not None:
            for role, sha in input_shas(task).items():
                size = self._size(sha)
                if size is not None:
                    inputs.append(FileLink(role, download_name(role, f"{task_id}.{role}"),
                                           self._link(f"files/{sha}"), size))
        return {
            "task": task,
            "task_id": task_id,
            "family": family_of(task),
            "category": task_meta(task, "category"),
            "tier": task_meta(task, "tier"),
            "cluster": data.cluster(task_id),
            "inputs": inputs,
            "samples": samples,
            "votes": self.snap.votes.get(task_id, []),
        }

    def _size(self, sha: str | None) -> int | None:
        path = self.objects.get(sha)
        return path.stat().st_size if path is not None else None

    def _sample(self, outcome: Outcome, source: str | None) -> SampleView:
        data = self.data
        task = data.tasks.get(outcome.task_id)
        attempt = outcome.attempt
        render = data.render(outcome.artifact, outcome.task_id)
        shown = pages(render)
        result = shown[0].sha256 if shown else None
        language = task.params.get("language") if task is not None else None
        stem = f"{outcome.task_id}.{outcome.config_id}.try{attempt.try_index}"
        files = [
            FileLink(role, download_name(role, stem, language), self._link(f"files/{sha}"), size)
            for role, sha in sorted(attempt.outputs.items())
            if (size := self._size(sha)) is not None
        ]
        # a failed rendering has no page but may have a log (the interpreter's error)
        log = render_log(render) or next((r.log_sha256 for r in data.renderings(
            outcome.artifact, outcome.task_id) if r.log_sha256), None)
        if log and (size := self._size(log)) is not None:
            files.append(FileLink("render-log", download_name("render-log", stem),
                                  self._link(f"files/{log}"), size))
        view = panels().view(family_of(task))
        metrics = outcome.values
        panel = view.panel(PanelInput(task, outcome, metrics, shown, log,
                                      self.objects.read_text))
        for block in panel:  # images a panel shows are files of the run like any other
            if "items" not in block:
                continue
            shown_items = [item for item in block["items"] if self.objects.is_picture(
                item.get("sha256"))]
            for item in shown_items:
                item["href"] = self._link(f"files/{item['sha256']}")
            if len(shown_items) < len(block["items"]):  # never a broken picture
                block["missing"] = len(block["items"]) - len(shown_items)
            block["items"] = shown_items
        status, reason = status_of(outcome)
        picture = self.objects.is_picture
        talk = conversation(
            self.objects.read_bytes(attempt.outputs.get("transcript"), MAX_TRANSCRIPT_READ),
            self.objects.read_bytes(attempt.outputs.get("calls"), MAX_TRANSCRIPT_READ),
        )
        tries = sorted((a for a in data.attempts if a.task_id == outcome.task_id
                        and a.config_id == outcome.config_id), key=lambda a: a.try_index)
        return SampleView(
            config=outcome.config_id,
            anchor=slug(outcome.config_id),
            config_href=self.config_href(outcome.config_id, "../"),
            status=status,
            reason=reason,
            detail=outcome.gate_detail or (attempt.error.message if attempt.error else ""),
            attempt=attempt,
            tries=tries,
            files=files,
            source=self._link(f"files/{source}") if picture(source) else None,
            result=self._link(f"files/{result}") if picture(result) else None,
            diff=self._link(f"img/diff/{source}-{result}.png")
            if picture(source) and picture(result) else None,
            panel_title=view.title or view.family,
            panel=[block for block in panel if not block.get("lead")],
            lead=[block for block in panel if block.get("lead")],
            metrics=[(f"{m}/{n}", format_number(v.value))
                     for (m, n), v in sorted(metrics.items())],
            judges=self._judges(outcome),
            talk=talk,
        )

    def _judges(self, outcome: Outcome) -> list[JudgeView]:
        views = []
        for label, scores in self.snap.context.judges.items():
            found = self.snap.judgments(label, outcome)
            if not found:
                continue
            total = scores.total[scores.config_index(outcome.config_id),
                                 scores.task_index(outcome.task_id)]
            views.append(JudgeView(label, float(total) if np.isfinite(total) else None, found))
        return views

    # --- configuration page ---------------------------------------------------------------------

    def config_page(self, config_id: str) -> dict[str, Any]:
        """One configuration: its rows of each summary table and its per-task results."""
        data = self.data
        rows: list[tuple[Table, list[dict[str, Any]]]] = []
        for table in self.snap.analysis().tables:
            if table.detail or table.empty:
                continue
            mine = [r for r in table.rows
                    if config_id in (r.get("config"), r.get("treatment"), r.get("baseline"))]
            if mine:
                rows.append((table, mine))
        judges = self.snap.context.judges
        tasks = []
        for task_id in data.task_order:
            outcome = data.outcomes.get((task_id, config_id))
            if outcome is None:
                continue
            totals = {}
            for label, scores in judges.items():
                value = scores.total[scores.config_index(config_id), scores.task_index(task_id)]
                totals[label] = float(value) if np.isfinite(value) else None
            status, reason = status_of(outcome)
            tasks.append({
                "id": task_id,
                "href": f"{self.task_href(task_id, '../')}#{slug(config_id)}",
                "gate": reason if status != "passed" else "passed",
                "totals": totals,
                "turns": outcome.attempt.turns,
                "cost": outcome.attempt.cost_usd,
                "failed_judgments": sum(
                    j.status == JudgmentStatus.FAILED
                    for label in judges
                    for j in self.snap.judgments(label, outcome)
                ),
            })
        return {
            "config": data.configs.get(config_id),
            "config_id": config_id,
            "tables": rows,
            "tasks": tasks,
            "judges": list(judges),
        }
