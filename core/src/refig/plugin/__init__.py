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
    PluginKind,
    PluginRecord,
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
        ("Task", "Asset", "Attempt", "AttemptStatus", "GateResult", "GateReason", "Inspection",
         "Render", "Page", "MetricValue", "Judgment", "JudgmentStatus", "AxisScore",
         "ErrorInfo", "Usage", "Preference", "Configuration", "Output", "stable_hash",
         "SCHEMA_VERSION"),
        "refig.models",
    ),
    # protocols and the values they exchange
    **dict.fromkeys(
        ("TaskFamily", "Harness", "Workflow", "Renderer", "Metric", "Judge", "Reporter",
         "Executor", "Artifact", "JudgeRequest", "Evidence", "RenderJob", "RenderOutput",
         "HarnessResult", "AttemptContext", "Prompt", "SectionBuilder"),
        "refig.protocols",
    ),
    **dict.fromkeys(("RefigError", "UsageError", "FamilyMismatchError", "did_you_mean", "docs",
                     "install_fix"), "refig.errors"),
    **dict.fromkeys(("Suite", "SuiteWriter", "SuiteError"), "refig.suite"),
    **dict.fromkeys(("ValueMaker", "source_sha256", "unavailable"), "refig.metric_values"),
    **dict.fromkeys(("AnswerError", "Rubric", "counted_total", "load_rubric"), "refig.rubric"),
    **dict.fromkeys(("STAGE_OPTIONS",), "refig.judging"),
    # the sandbox call for programs run during evaluation
    **dict.fromkeys(("run_sandboxed", "SandboxResult"), "refig.running.programs"),
    **dict.fromkeys(("DEFAULT_MAX_PROCESSES", "ProcessCap", "process_cap"),
                    "refig.running.process_cap"),
    **dict.fromkeys(("SandboxPolicy", "run_command"), "refig.running.sandbox"),
    # a harness's workspace: the file names it leaves, and a task's inputs put there as an
    # attempt does (for a harness's own tests)
    **dict.fromkeys(("source_name", "write_inputs"),
                    "refig.running.workspace"),
    **dict.fromkeys(("in_flight",), "refig.inflight"),
    **dict.fromkeys(("RetryPolicy",), "refig.traffic"),
    **dict.fromkeys(("Redactor", "find_secrets"), "refig.running.redact"),
    # files an untrusted process or folder left, read without following links
    **dict.fromkeys(("FileRefused", "Refused", "confined_files", "read_confined"),
                    "refig.confined"),
    # the pixel limit of images read from suites; progress, doctor checks
    **dict.fromkeys(("MAX_PIXELS",), "refig.image_headers"),
    **dict.fromkeys(("err", "out", "print_table", "track"), "refig.console"),
    **dict.fromkeys(("Check", "Status", "apt_fix", "tool"), "refig.doctor"),
    **dict.fromkeys(("Registry",), "refig.plugins"),
    **dict.fromkeys(("RunStore",), "refig.store"),
    # this process's warm renderer by name (a metric that renders edited copies shares it)
    **dict.fromkeys(("renderer_for",), "refig.engine.plugins"),
    # values made once per key in a process (caches shared by threads)
    **dict.fromkeys(("OncePerKey",), "refig.once"),
    **dict.fromkeys(("cache_dir",), "refig.home"),
}

__all__ = [
    "DEFAULT_MAX_PROCESSES",
    "MAX_PIXELS",
    "SCHEMA_VERSION",
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
    "Configuration",
    "Deliverable",
    "ErrorInfo",
    "Evidence",
    "Executor",
    "ExecutorRecord",
    "FamilyDemo",
    "FamilyMismatchError",
    "FileRefused",
    "GateReason",
    "GateResult",
    "Harness",
    "HarnessRecord",
    "HarnessResult",
    "InputSpec",
    "Inspection",
    "Judge",
    "JudgeRecord",
    "JudgeRequest",
    "Judgment",
    "JudgmentStatus",
    "Metric",
    "MetricRecord",
    "MetricValue",
    "OncePerKey",
    "Output",
    "Page",
    "PluginKind",
    "PluginRecord",
    "Preference",
    "ProcessCap",
    "Prompt",
    "Redactor",
    "RefigError",
    "Refused",
    "Registry",
    "Render",
    "RenderJob",
    "RenderOutput",
    "Renderer",
    "RendererRecord",
    "Reporter",
    "ReporterRecord",
    "RetryPolicy",
    "Rubric",
    "RunStore",
    "SandboxPolicy",
    "SandboxResult",
    "SectionBuilder",
    "Status",
    "Suite",
    "SuiteError",
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
    "did_you_mean",
    "docs",
    "err",
    "find_secrets",
    "hookimpl",
    "in_flight",
    "install_fix",
    "load_rubric",
    "out",
    "print_table",
    "process_cap",
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
    "write_inputs",
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
    from refig.engine.plugins import renderer_for
    from refig.errors import FamilyMismatchError, RefigError, UsageError, did_you_mean
    from refig.home import cache_dir
    from refig.image_headers import MAX_PIXELS
    from refig.inflight import in_flight
    from refig.judging import STAGE_OPTIONS
    from refig.metric_values import ValueMaker, source_sha256, unavailable
    from refig.models import (
        SCHEMA_VERSION,
        Asset,
        Attempt,
        AttemptStatus,
        AxisScore,
        Configuration,
        ErrorInfo,
        GateReason,
        GateResult,
        Inspection,
        Judgment,
        JudgmentStatus,
        MetricValue,
        Output,
        Page,
        Preference,
        Render,
        Task,
        Usage,
        stable_hash,
    )
    from refig.once import OncePerKey
    from refig.plugins import Registry
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
        SectionBuilder,
        TaskFamily,
        Workflow,
    )
    from refig.rubric import AnswerError, Rubric, counted_total, load_rubric
    from refig.running.process_cap import DEFAULT_MAX_PROCESSES, ProcessCap, process_cap
    from refig.running.programs import SandboxResult, run_sandboxed
    from refig.running.redact import Redactor, find_secrets
    from refig.running.sandbox import SandboxPolicy, run_command
    from refig.running.workspace import source_name, write_inputs
    from refig.store import RunStore
    from refig.suite import Suite, SuiteError, SuiteWriter
    from refig.traffic import RetryPolicy
