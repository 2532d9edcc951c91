"""What one ``refig annotate`` process remembers between requests, and the page's three actions.

Each annotator has at most one current assignment (the pair on their screen), named by a random
token; a vote must quote it, so a double key press or a second tab cannot vote twice. Every
decision reads the stored votes again, so several processes on one run stay consistent through
the store. A lock serialises the actions of this process.
"""

from __future__ import annotations

import math
import secrets
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from refig.models import Preference, utcnow
from refig.store import RunStore

from refig_toolkit_analysis.annotation.candidates import Candidates
from refig_toolkit_analysis.annotation.planner import (
    DEFAULT_REPLICATION,
    Assignment,
    Plan,
    next_assignment,
    progress,
)
from refig_toolkit_analysis.annotation.votes import (
    ANNOTATOR,
    VOTE_ID,
    ItemKey,
    last_vote,
    retract,
    vote_key,
)

Choice = Literal["A", "B", "tie"]
#: A decision time beyond a day is a page left open, not a measurement.
MAX_SECONDS = 86_400.0


class ActionError(Exception):
    """A request the page must handle: ``status`` 400 (malformed) or 409 (stale or nothing)."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Current:
    token: str
    assignment: Assignment


class Session:
    """The plan, the store and each annotator's current assignment."""

    def __init__(
        self,
        store: RunStore,
        candidates: Candidates,
        plan: Plan,
        *,
        replication: int = DEFAULT_REPLICATION,
        default_annotator: str | None = None,
    ):
        if default_annotator is not None:
            check_annotator(default_annotator)
        self.store = store
        self.candidates = candidates
        self.plan = plan
        self.replication = replication
        self.default_annotator = default_annotator
        self.id = uuid.uuid4().hex
        self.stored = 0
        self._current: dict[str, Current] = {}
        self._lock = threading.Lock()

    #: The page script this session is driven by (served as ``/static/page.js``).
    script = "app.js"

    @property
    def images(self) -> dict[str, str]:
        """Content type of every image the page may ask for, by hash."""
        return self.candidates.images

    def image(self, sha: str) -> tuple[Path, str] | None:
        """The file and content type of an image the plan shows, by hash."""
        kind = self.candidates.images.get(sha)
        return None if kind is None else (self.store.objects.path(sha), kind)

    def info(self) -> dict[str, Any]:
        """What the page needs before it knows the annotator (never a configuration name)."""
        return {
            "run": self.store.root.name,
            "default_annotator": self.default_annotator,
            "planned": len(self.plan.items),
        }

    # --- the page's actions -------------------------------------------------------------------

    def state(self, annotator: str) -> dict[str, Any]:
        """The annotator's current pair (a new one if none) and their progress."""
        check_annotator(annotator)
        with self._lock:
            return self._state(annotator, self._votes())

    def vote(
        self,
        annotator: str,
        token: str,
        choice: str,
        vote_id: str | None = None,
        seconds: float | None = None,
    ) -> dict[str, Any]:
        """Store a vote on the annotator's current pair; answer with the next pair."""
        check_annotator(annotator)
        if choice not in ("A", "B", "tie"):
            raise ActionError(f"choice must be A, B or tie, not {choice!r}", 400)
        if vote_id is not None and not VOTE_ID.match(vote_id):
            raise ActionError("a vote id is 8 to 64 letters, digits, '-' or '_'", 400)
        with self._lock:
            votes = self._votes()
            if vote_id is not None:
                held = next((v for v in votes if v.id == vote_id), None)
                if held is not None and held.annotator == annotator:  # a retried request
                    return self._state(annotator, votes)
                if held is not None:
                    raise ActionError("that vote id is taken", 400)
            current = self._current.get(annotator)
            if current is None or current.token != token:
                raise ActionError("that pair is no longer on your screen; here is the current one")
            item = current.assignment.item
            if _voted(votes, annotator, item.key):
                del self._current[annotator]
                raise ActionError("you already voted on this pair (in another tab?)")
            left, right = current.assignment.left, current.assignment.right
            vote = Preference(
                id=vote_id or uuid.uuid4().hex,
                annotator=annotator,
                task_id=item.task_id,
                left=left.config_id,
                right=right.config_id,
                choice=choice,  # type: ignore[arg-type]
                created_at=utcnow(),
                left_artifact=left.artifact,
                right_artifact=right.artifact,
                session=self.id,
                seconds=clamp_seconds(seconds),
                audit_verdicts=self.candidates.verdicts,
            )
            self.store.put(vote)
            self.stored += 1
            del self._current[annotator]
            return self._state(annotator, [*votes, vote])

    def undo(self, annotator: str) -> dict[str, Any]:
        """Take back the annotator's last vote and show that pair again, in the same order."""
        check_annotator(annotator)
        with self._lock:
            votes = self._votes()
            vote = last_vote(votes, annotator)
            if vote is None:
                raise ActionError("nothing to undo: you have no vote in this run")
            retracted = retract(self.store, vote)
            votes = [retracted if v.id == vote.id else v for v in votes]
            index = self.plan.index.get(vote_key(vote))
            note = "your last vote was taken back"
            if index is None:
                self._current.pop(annotator, None)
                note += " (that pair is not in this session's plan, so it is not shown again)"
            else:
                item = self.plan.items[index]
                first_left = vote.left == item.first.config_id
                left, right = (item.first, item.second) if first_left else (item.second, item.first)
                self._current[annotator] = Current(
                    secrets.token_urlsafe(12), Assignment(item, left, right)
                )
            return {**self._state(annotator, votes), "message": note, "undone": True}

    # --- helpers ------------------------------------------------------------------------------

    def _votes(self) -> list[Preference]:
        return list(self.store.iter(Preference))

    def _state(self, annotator: str, votes: list[Preference]) -> dict[str, Any]:
        current = self._current.get(annotator)
        if current is not None and _voted(votes, annotator, current.assignment.item.key):
            current = None  # voted on elsewhere (another tab or process)
        if current is None:
            pending = {who: c.assignment for who, c in self._current.items() if who != annotator}
            found = next_assignment(
                self.plan, annotator, votes, pending, replication=self.replication
            )
            if found is None:
                self._current.pop(annotator, None)
            else:
                current = Current(secrets.token_urlsafe(12), found)
                self._current[annotator] = current
        done = progress(self.plan, annotator, votes)
        state: dict[str, Any] = {
            "annotator": annotator,
            "progress": {"done": done.done, "planned": done.planned, "votes": done.votes},
            "can_undo": last_vote(votes, annotator) is not None,
            "item": None if current is None else _item(current),
            "message": None,
            "undone": False,
        }
        if current is None:
            state["message"] = (
                f"Nothing left to compare: you have voted on all {done.planned} planned pairs."
            )
        return state


def check_annotator(name: str) -> None:
    """An annotator id: 1 to 64 letters, digits or ``. _ @ + -``, starting with a letter/digit."""
    if not ANNOTATOR.match(name or ""):
        raise ActionError(
            "an annotator name is 1 to 64 letters, digits or . _ @ + - (no spaces)", 400
        )


def _voted(votes: list[Preference], annotator: str, key: ItemKey) -> bool:
    return any(v.annotator == annotator and v.active and vote_key(v) == key for v in votes)


def clamp_seconds(value: object) -> float | None:
    """A decision time as the page measured it (any JSON value), within 0 to a day (None when
    not a number)."""
    if value is None or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return round(min(max(float(value), 0.0), MAX_SECONDS), 3)


def _item(current: Current) -> dict[str, Any]:
    """The pair as the page sees it: images by hash and audits, never configuration names."""
    assignment = current.assignment
    item = assignment.item
    return {
        "token": current.token,
        "task": item.task_id,
        "source": None if item.source_sha256 is None else f"/img/{item.source_sha256}",
        "left": {"image": f"/img/{assignment.left.png_sha256}", "audit": assignment.left.audit},
        "right": {"image": f"/img/{assignment.right.png_sha256}", "audit": assignment.right.audit},
    }
