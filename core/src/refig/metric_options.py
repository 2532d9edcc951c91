"""``--metric-opt METRIC:KEY=VALUE``: options for the metric plugins a run's evaluation builds.

They travel to the process that builds a metric (a thread, or an executor's worker process) in
the environment variable :data:`ENV_VAR`, as JSON, so only names and strings cross a process
boundary; each metric is built with its own options as keyword arguments (strings)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from refig.errors import UsageError

ENV_VAR = "REFIG_METRIC_OPTIONS"


def parse_metric_options(pairs: Iterable[str]) -> dict[str, dict[str, str]]:
    """``METRIC:KEY=VALUE`` items as ``{metric: {key: value}}``."""
    options: dict[str, dict[str, str]] = {}
    for pair in pairs:
        head, sep, value = pair.partition("=")
        metric, colon, key = head.partition(":")
        if not sep or not colon or not metric.strip() or not key.strip():
            raise UsageError(f"--metric-opt {pair!r} is not METRIC:KEY=VALUE",
                             fix="write e.g. --metric-opt code:trivial_k=100")
        options.setdefault(metric.strip(), {})[key.strip()] = value
    return options


def metric_options(name: str) -> dict[str, str]:
    """The options given for metric ``name`` in this process's environment."""
    raw = os.environ.get(ENV_VAR)
    return dict(json.loads(raw).get(name, {})) if raw else {}


@contextmanager
def given(options: Mapping[str, Mapping[str, str]]) -> Iterator[None]:
    """Make ``options`` the metric options of this process and the processes it starts."""
    before = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = json.dumps(options)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = before
