"""What made a run's numbers: each stage's environment, and where evaluation left the plan."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from refig.models.record import Record, utcnow


class Environment(Record):
    """The environment one stage ran in on one host: each entry ``component.key`` as the
    component reported it (``Renderer.environment()`` and the like). Stored once per distinct
    ``digest`` and host, when the stage first does work there, so a run evaluated on two
    machines, or before and after an upgrade, holds both."""

    stage: str
    digest: str
    host: str
    entries: dict[str, str]
    created_at: datetime = Field(default_factory=utcnow)


class Deviation(Record):
    """One plan entry an evaluation used other than the run's lock said (None: absent on that
    side), stored the first time it happened."""

    entry: str
    locked: str | None
    used: str | None
    stage: str
    created_at: datetime = Field(default_factory=utcnow)
