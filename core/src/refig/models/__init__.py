"""The data of an experiment, as validated pydantic models.

These are the boundary types: they are written to and read from the run store, suite files and
``--json`` output. ``SCHEMA_VERSION`` is stored in every run and suite; a change that breaks reading
old data bumps it. Each submodule holds one stage's records; every name is imported from here.
"""

from refig.models.attempts import Attempt, AttemptStatus, ErrorInfo, Output, Usage
from refig.models.evaluation import GateReason, GateResult, Inspection, MetricValue, Page, Render
from refig.models.human import Preference, Rating
from refig.models.judgments import AxisScore, Judgment, JudgmentStatus
from refig.models.provenance import Deviation, Environment
from refig.models.record import (
    ID_PATTERN,
    SCHEMA_VERSION,
    SHA256_PATTERN,
    R,
    Record,
    stable_hash,
    utcnow,
)
from refig.models.tasks import Asset, Configuration, SuiteManifest, Task

__all__ = [
    "ID_PATTERN",
    "SCHEMA_VERSION",
    "SHA256_PATTERN",
    "Asset",
    "Attempt",
    "AttemptStatus",
    "AxisScore",
    "Configuration",
    "Deviation",
    "Environment",
    "ErrorInfo",
    "GateReason",
    "GateResult",
    "Inspection",
    "Judgment",
    "JudgmentStatus",
    "MetricValue",
    "Output",
    "Page",
    "Preference",
    "R",
    "Rating",
    "Record",
    "Render",
    "SuiteManifest",
    "Task",
    "Usage",
    "stable_hash",
    "utcnow",
]
