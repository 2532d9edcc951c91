"""Blinded human verdicts: pairwise preferences and rubric ratings, undone by retraction."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from refig.models.record import Record, utcnow


class Preference(Record):
    """A blinded human comparison: configurations shown left (A) and right (B), and the choice.

    ``left`` and ``right`` are the order the page showed. Undo never deletes a vote: it stores the
    same vote again with ``retracted_at`` set, so a retraction travels with export and import, and
    analyses read only active votes (``retracted_at`` None).
    """

    id: str
    annotator: str
    task_id: str
    left: str
    right: str
    choice: Literal["A", "B", "tie"]
    created_at: datetime = Field(default_factory=utcnow)
    #: Hashes of the slides shown left and right (the artifacts the vote is about).
    left_artifact: str | None = None
    right_artifact: str | None = None
    #: The ``refig annotate`` process that stored the vote.
    session: str | None = None
    #: Seconds from showing the pair to the vote, as the page measured them.
    seconds: float | None = None
    retracted_at: datetime | None = None
    #: Whether the page's audits showed derived verdicts (source pasted, flattened, text recall)
    #: besides the object counts; None on votes stored before this was recorded (they did).
    audit_verdicts: bool | None = None

    @property
    def active(self) -> bool:
        """True unless the annotator took the vote back."""
        return self.retracted_at is None


class Rating(Record):
    """A blinded expert rating of one task x configuration: an integer per rubric axis.

    ``scores`` maps the family rubric's axis ids to whole points in ``0..axis max``; ``rubric``
    names the rubric (``name@version``) the page took the axes from. Undo stores the same rating
    again with ``retracted_at`` set, exactly as for :class:`Preference`.
    """

    id: str
    annotator: str
    task_id: str
    config_id: str
    #: Hash of the artifact rated (the result the judges scored).
    artifact: str
    rubric: str
    scores: dict[str, int]
    created_at: datetime = Field(default_factory=utcnow)
    session: str | None = None
    seconds: float | None = None
    retracted_at: datetime | None = None

    @property
    def active(self) -> bool:
        """True unless the annotator took the rating back."""
        return self.retracted_at is None
