"""The surface a reporter imports to read a folder of runs as one collection (``refig view
DIR``, ``refig report DIR --html``): which folders are runs, and how each is named."""

from __future__ import annotations

from refig.collection import (
    Unreadable,
    collection_runs,
    find_runs,
    is_run,
    judge_notice,
    judges_of,
    run_name,
    runs_without,
)

__all__ = ["Unreadable", "collection_runs", "find_runs", "is_run", "judge_notice", "judges_of",
           "run_name", "runs_without"]
