"""The documented import surface for plugins: the only core module a plugin's code imports.
Libraries plugins share are the toolkits (``refig_toolkit_agent``, ``refig_toolkit_analysis``,
``refig_toolkit_pptx``, ``refig_toolkit_imaging``, ``refig_toolkit_llm``,
``refig_toolkit_testing``), each a distribution a plugin declares.

Names load on first use, so a plugin's light ``hooks`` module can import its records from here
without pulling in the data models or the sandbox (``refig list-plugins`` stays fast).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from refig.hookspecs import hookimpl
from refig.records import (
    CliPin,
    Deliverable,
    ExecutorRecord,
    FamilyDemo,
    HarnessRecord,
    InputSpec,
    JudgeRecord,
    MetricRecord,
    RendererRecord,
    ReporterRecord,
    SuiteRecord,
    TaskFamilyRecord,
    WorkflowRecord,
)

#: Lazily exported names and the module each comes from.
_LAZY: dict[str, str] = {
    # data types
    **dict.fromkeys(
        ("Task", "Asset", "Attempt", "AttemptStatus", "GateResult", "GateReason",
         "Render", "MetricValue", "Judgment", "JudgmentStatus", "AxisScore", "ErrorInfo",
         "Usage", "stable_hash"),
        "refig.models",
    ),
    # protocols and the values they exchange
    **dict.fromkeys(
        ("TaskFamily", "Harness", "Workflow", "Renderer", "Metric", "Judge", "Reporter",
         "Executor", "Artifact", "JudgeRequest", "Evidence", "RenderJob", "RenderOutput",
         "HarnessResult", "AttemptContext", "Prompt"),
        "refig.protocols",
    ),
    **dict.fromkeys(("RefigError", "UsageError", "docs", "install_fix"), "refig.errors"),
    **dict.fromkeys(("Suite", "SuiteWriter"), "refig.suite"),
    **dict.fromkeys(("ValueMaker", "source_sha256", "unavailable"), "refig.metric_values"),
    **dict.fromkeys(("AnswerError", "Rubric", "counted_total", "load_rubric"), "refig.rubric"),
    **dict.fromkeys(("STAGE_OPTIONS",), "refig.judging"),
    # the sandbox call for programs run during evaluation
    **dict.fromkeys(("run_sandboxed",), "refig.running.programs"),
    **dict.fromkeys(("SandboxPolicy", "run_command"), "refig.running.sandbox"),
    # the file name a task's source gets in a harness's workspace
    **dict.fromkeys(("source_name",), "refig.running.workspace"),
    # an executor's loop: up to ``jobs`` items in flight, each yielded as it finishes
    **dict.fromkeys(("in_flight",), "refig.inflight"),
    # files an untrusted process or folder left, read without following links
    **dict.fromkeys(("FileRefused", "Refused", "confined_files", "read_confined"),
                    "refig.confined"),
    # the console (progress, tables), a record's doctor checks
    **dict.fromkeys(("err", "out", "print_table", "track"), "refig.console"),
    **dict.fromkeys(("Check", "Status", "apt_fix", "tool"), "refig.doctor"),
    # other plugins by name: this process's warm renderer (a metric that renders edited copies
    # shares it), a new object of one, the records of one kind
    **dict.fromkeys(("renderer_for", "make_plugin", "installed_records"), "refig.engine.plugins"),
    # values made once per key in a process (caches shared by threads)
    **dict.fromkeys(("OncePerKey",), "refig.once"),
    **dict.fromkeys(("cache_dir",), "refig.home"),
}

__all__ = [
    "STAGE_OPTIONS",
    "AnswerError",
    "Artifact",
    "Asset",
    "Attempt",
    "AttemptContext",
    "AttemptStatus",
    "AxisScore",
    "Check",
    "CliPin",
    "Deliverable",
    "ErrorInfo",
    "Evidence",
    "Executor",
    "ExecutorRecord",
    "FamilyDemo",
    "FileRefused",
    "GateReason",
    "GateResult",
    "Harness",
    "HarnessRecord",
    "HarnessResult",
    "InputSpec",
    "Judge",
    "JudgeRecord",
    "JudgeRequest",
    "Judgment",
    "JudgmentStatus",
    "Metric",
    "MetricRecord",
    "MetricValue",
    "OncePerKey",
    "Prompt",
    "RefigError",
    "Refused",
    "Render",
    "RenderJob",
    "RenderOutput",
    "Renderer",
    "RendererRecord",
    "Reporter",
    "ReporterRecord",
    "Rubric",
    "SandboxPolicy",
    "Status",
    "Suite",
    "SuiteRecord",
    "SuiteWriter",
    "Task",
    "TaskFamily",
    "TaskFamilyRecord",
    "Usage",
    "UsageError",
    "ValueMaker",
    "Workflow",
    "WorkflowRecord",
    "apt_fix",
    "cache_dir",
    "confined_files",
    "counted_total",
    "docs",
    "err",
    "hookimpl",
    "in_flight",
    "install_fix",
    "installed_records",
    "load_rubric",
    "make_plugin",
    "out",
    "print_table",
    "read_confined",
    "renderer_for",
    "run_command",
    "run_sandboxed",
    "source_name",
    "source_sha256",
    "stable_hash",
    "tool",
    "track",
    "unavailable",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        from refig.errors import docs

        raise AttributeError(f"refig.plugin has no {name!r} (see {docs('plugins.md')})")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)


if TYPE_CHECKING:
    from refig.confined import FileRefused, Refused, confined_files, read_confined
    from refig.console import err, out, print_table, track
    from refig.doctor import Check, Status, apt_fix, tool
    from refig.engine.plugins import installed_records, make_plugin, renderer_for
    from refig.errors import RefigError, UsageError, docs, install_fix
    from refig.home import cache_dir
    from refig.inflight import in_flight
    from refig.judging import STAGE_OPTIONS
    from refig.metric_values import ValueMaker, source_sha256, unavailable
    from refig.models import (
        Asset,
        Attempt,
        AttemptStatus,
        AxisScore,
        ErrorInfo,
        GateReason,
        GateResult,
        Judgment,
        JudgmentStatus,
        MetricValue,
        Render,
        Task,
        Usage,
        stable_hash,
    )
    from refig.once import OncePerKey
    from refig.protocols import (
        Artifact,
        AttemptContext,
        Evidence,
        Executor,
        Harness,
        HarnessResult,
        Judge,
        JudgeRequest,
        Metric,
        Prompt,
        Renderer,
        RenderJob,
        RenderOutput,
        Reporter,
        TaskFamily,
        Workflow,
    )
    from refig.rubric import AnswerError, Rubric, counted_total, load_rubric
    from refig.running.programs import run_sandboxed
    from refig.running.sandbox import SandboxPolicy, run_command
    from refig.running.workspace import source_name
    from refig.suite import Suite, SuiteWriter
