"""The rating page's plan and actions: absolute ratings on a family's rubric axes.

The plan lists every ratable task x configuration once, in rounds over configurations (each
round rates every configuration once more, on the source cluster it has been rated on least;
seeded ties), so any prefix rates all configurations equally often within one. Each annotator
walks it in order, skipping what they rated and preferring items fewer than ``replication``
others rated or have on screen (:func:`.planner.first_open`), exactly as
votes are planned. A rating must quote the token of the item on screen; undo is a retraction.
"""

from __future__ import annotations

import random
import secrets
import threading
import uuid
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping
from pathlib import Path
from typing import Any

from refig.models import Rating, utcnow
from refig.store import RunStore

from refig_toolkit_analysis.annotation.exchange import RECORD_ID
from refig_toolkit_analysis.annotation.planner import (
    DEFAULT_REPLICATION,
    balanced_rounds,
    first_open,
)
from refig_toolkit_analysis.annotation.rating_items import RatingItem, RatingItems
from refig_toolkit_analysis.annotation.session import ActionError, check_annotator, clamp_seconds
from refig_toolkit_analysis.annotation.votes import last_vote, retract

RatingKey = tuple[str, str]


def rating_plan(items: Iterable[RatingItem], seed: int = 0) -> tuple[RatingItem, ...]:
    """Every item once, balanced over configurations and spread over source clusters."""
    pools: dict[Hashable, list[RatingItem]] = defaultdict(list)
    for item in sorted(items, key=lambda i: i.key):
        pools[item.config_id].append(item)
    return tuple(balanced_rounds(pools, random.Random(seed), lambda i: i.cluster,
                                 lambda i: i.task_id))


def next_item(plan: tuple[RatingItem, ...], annotator: str, ratings: Iterable[Rating],
              pending: Mapping[str, RatingItem], replication: int) -> RatingItem | None:
    """The annotator's next item (see the module), or None when they rated every one."""
    active = [r for r in ratings if r.active]
    seen = {(r.task_id, r.config_id) for r in active if r.annotator == annotator}
    load: Counter[RatingKey] = Counter((r.task_id, r.config_id) for r in active
                                       if r.annotator != annotator)
    load.update(item.key for who, item in pending.items() if who != annotator)
    return first_open(plan, lambda i: i.key, seen, load, replication)


def check_scores(item: RatingItem, scores: Any) -> dict[str, int]:
    """Every axis of the item's rubric once, each a whole number in ``0..max``."""
    if not isinstance(scores, dict):
        raise ActionError("scores must be an object of axis id to points", 400)
    expected = [a.id for a in item.axes]
    if sorted(scores) != sorted(expected):
        raise ActionError(f"rate exactly the axes {expected}, got {sorted(scores)}", 400)
    checked = {}
    for axis in item.axes:
        value = scores[axis.id]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= axis.max:
            raise ActionError(f"{axis.id} must be a whole number 0 to {axis.max}, "
                              f"not {value!r}", 400)
        checked[axis.id] = value
    return checked


class RatingSession:
    """The rating plan, the store and each annotator's current item (by a random token)."""

    #: The page script this session is driven by (served as ``/static/page.js``).
    script = "rate.js"

    def __init__(self, store: RunStore, found: RatingItems, *, seed: int = 0,
                 replication: int = DEFAULT_REPLICATION, default_annotator: str | None = None):
        if default_annotator is not None:
            check_annotator(default_annotator)
        self.store = store
        self.found = found
        self.plan = rating_plan(found.items, seed)
        self.index = {item.key: item for item in self.plan}
        self.replication = replication
        self.default_annotator = default_annotator
        self.id = uuid.uuid4().hex
        self.stored = 0
        self._current: dict[str, tuple[str, RatingItem]] = {}
        self._lock = threading.Lock()

    def image(self, sha: str) -> tuple[Path, str] | None:
        """The file and content type of an image the plan shows, by hash."""
        return self.found.images.get(sha)

    def info(self) -> dict[str, Any]:
        return {"run": self.store.root.name, "default_annotator": self.default_annotator,
                "planned": len(self.plan), "mode": "rate"}

    def state(self, annotator: str) -> dict[str, Any]:
        """The annotator's current item (a new one if none) and their progress."""
        check_annotator(annotator)
        with self._lock:
            return self._state(annotator, self._ratings())

    def rate(self, annotator: str, token: str, scores: Any, rating_id: str | None = None,
             seconds: float | None = None) -> dict[str, Any]:
        """Store a rating of the annotator's current item; answer with the next one."""
        check_annotator(annotator)
        if rating_id is not None and not RECORD_ID.match(rating_id):
            raise ActionError("a rating id is 8 to 64 letters, digits, '-' or '_'", 400)
        with self._lock:
            ratings = self._ratings()
            if rating_id is not None:
                held = next((r for r in ratings if r.id == rating_id), None)
                if held is not None and held.annotator == annotator:  # a retried request
                    return self._state(annotator, ratings)
                if held is not None:
                    raise ActionError("that rating id is taken", 400)
            current = self._current.get(annotator)
            if current is None or current[0] != token:
                raise ActionError("that item is no longer on your screen; here is the current one")
            item = current[1]
            rating = Rating(
                id=rating_id or uuid.uuid4().hex, annotator=annotator, task_id=item.task_id,
                config_id=item.config_id, artifact=item.artifact, rubric=item.rubric,
                scores=check_scores(item, scores), created_at=utcnow(), session=self.id,
                seconds=clamp_seconds(seconds))
            if _rated(ratings, annotator, item.key):
                del self._current[annotator]
                raise ActionError("you already rated this item (in another tab?)")
            self.store.put(rating)
            self.stored += 1
            del self._current[annotator]
            return self._state(annotator, [*ratings, rating])

    def undo(self, annotator: str) -> dict[str, Any]:
        """Take back the annotator's last rating and show that item again, scores filled in."""
        check_annotator(annotator)
        with self._lock:
            ratings = self._ratings()
            rating = last_vote(ratings, annotator)
            if rating is None:
                raise ActionError("nothing to undo: you have no rating in this run")
            retracted = retract(self.store, rating)
            ratings = [retracted if r.id == rating.id else r for r in ratings]
            item = self.index.get((rating.task_id, rating.config_id))
            note = "your last rating was taken back"
            if item is None:
                self._current.pop(annotator, None)
                note += " (that item is not in this session's plan, so it is not shown again)"
            else:
                self._current[annotator] = (secrets.token_urlsafe(12), item)
            state = self._state(annotator, ratings)
            return {**state, "message": note, "undone": True, "previous": rating.scores}

    def _ratings(self) -> list[Rating]:
        return list(self.store.iter(Rating))

    def _state(self, annotator: str, ratings: list[Rating]) -> dict[str, Any]:
        current = self._current.get(annotator)
        if current is not None and _rated(ratings, annotator, current[1].key):
            current = None  # rated elsewhere (another tab or process)
        if current is None:
            pending = {who: c[1] for who, c in self._current.items() if who != annotator}
            found = next_item(self.plan, annotator, ratings, pending, self.replication)
            self._current.pop(annotator, None)
            if found is not None:
                current = (secrets.token_urlsafe(12), found)
                self._current[annotator] = current
        active = [r for r in ratings if r.active]
        done = len({(r.task_id, r.config_id) for r in active if r.annotator == annotator}
                   & self.index.keys())
        state: dict[str, Any] = {
            "annotator": annotator,
            "progress": {"done": done, "planned": len(self.plan), "votes": len(active)},
            "can_undo": last_vote(ratings, annotator) is not None,
            "item": None if current is None else _shown(*current),
            "message": None, "undone": False, "previous": None,
        }
        if current is None:
            state["message"] = f"Nothing left to rate: you have rated all {len(self.plan)} items."
        return state


def _rated(ratings: list[Rating], annotator: str, key: RatingKey) -> bool:
    return any(r.annotator == annotator and r.active and (r.task_id, r.config_id) == key
               for r in ratings)


def _shown(token: str, item: RatingItem) -> dict[str, Any]:
    """The item as the page sees it: brief, axes, views of images by hash; never a config."""
    return {
        "token": token, "task": item.task_id, "brief": item.brief,
        "axes": [{"id": a.id, "title": a.title, "max": a.max} for a in item.axes],
        "views": [{"title": title, "selected": selected,
                   "images": [{"label": label, "src": f"/img/{sha}"} for label, sha in images]}
                  for title, selected, images in item.views],
    }
