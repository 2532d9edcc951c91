"""The documented import surface for plugins: the only core module a plugin's code imports,
besides :mod:`refig.pptx` (the PPTX toolkit), the sub-surface :mod:`refig.plugin.harness`
(harness adapters), and, in tests, :mod:`refig.testing`; toolkits (``refig_toolkit_*``, such as
the analysis toolkit reporters use) are libraries of their own.

Names load on first use, so a plugin's light ``hooks`` module can import its records from here
without pulling in the data models, images or the sandbox (``refig list-plugins`` stays fast).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from refig.hookspecs import hookimpl
from refig.records import (
    DECK_EDIT,
    FIGURE_TO_CODE,
    FIGURE_TO_SLIDE,
    CliPin,
    Deliverable,
    ExecutorRecord,
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
    **dict.fromkeys(("RefigError", "UsageError", "FamilyMismatchError", "docs", "install_fix"),
                    "refig.errors"),
    **dict.fromkeys(("Suite", "SuiteWriter", "SuiteError"), "refig.suite"),
    **dict.fromkeys(("ValueMaker", "source_sha256", "unavailable"), "refig.metric_values"),
    **dict.fromkeys(("AnswerError", "Rubric", "counted_total", "load_rubric"), "refig.rubric"),
    **dict.fromkeys(("STAGE_OPTIONS",), "refig.judging"),
    # the sandbox call for programs run during evaluation
    **dict.fromkeys(("run_sandboxed", "SandboxResult"), "refig.running.programs"),
    **dict.fromkeys(("DEFAULT_MAX_PROCESSES", "ProcessCap", "process_cap"),
                    "refig.running.process_cap"),
    **dict.fromkeys(("SandboxPolicy",), "refig.running.sandbox"),
    **dict.fromkeys(("Redactor", "find_secrets"), "refig.running.redact"),
    # files an untrusted process or folder left, read without following links
    **dict.fromkeys(("FileRefused", "Refused", "confined_files", "read_confined"),
                    "refig.confined"),
    # model calls
    **dict.fromkeys(
        ("ChatClient", "ChatOptions", "ChatReply", "CallError", "NO_KEY", "import_litellm",
         "data_url", "IDENTITY", "structured_call", "Structured", "AnswerRejected"),
        "refig.llm",
    ),
    # images, PDFs, OCR, progress, doctor checks
    **dict.fromkeys(
        ("ImageError", "MAX_PIXELS", "as_rgb", "border_colour", "content_box", "open_image",
         "png_bytes"),
        "refig.images",
    ),
    **dict.fromkeys(("PdfError", "dpi_within", "first_page", "render_pages", "render_pages_bgr"),
                    "refig.pdf"),
    **dict.fromkeys(("DETECTOR_SIDE", "OcrLine", "read_text"), "refig.ocr"),
    # where a picture sits in a source figure, once per pair of hashes
    **dict.fromkeys(("Match", "Signature"), "refig.locating.matching"),
    **dict.fromkeys(("cached_match", "image_signature", "locate", "source_box",
                     "source_signature"), "refig.locating.shared"),
    **dict.fromkeys(("err", "out", "print_table", "track"), "refig.console"),
    **dict.fromkeys(("Check", "Status", "apt_fix", "tool"), "refig.doctor"),
    **dict.fromkeys(("Registry",), "refig.plugins"),
    **dict.fromkeys(("RunStore",), "refig.store"),
    # this process's warm renderer by name (a metric that renders edited copies shares it)
    **dict.fromkeys(("renderer_for",), "refig.engine.plugins"),
    **dict.fromkeys(("ModelCall",), "refig.gateway.calls"),
    # values made once per key in a process (caches shared by threads)
    **dict.fromkeys(("OncePerKey",), "refig.once"),
    **dict.fromkeys(("cache_dir",), "refig.home"),
}

__all__ = [
    "DECK_EDIT",
    "DEFAULT_MAX_PROCESSES",
    "DETECTOR_SIDE",
    "FIGURE_TO_CODE",
    "FIGURE_TO_SLIDE",
    "IDENTITY",
    "MAX_PIXELS",
    "NO_KEY",
    "SCHEMA_VERSION",
    "STAGE_OPTIONS",
    "AnswerError",
    "AnswerRejected",
    "Artifact",
    "Asset",
    "Attempt",
    "AttemptContext",
    "AttemptStatus",
    "AxisScore",
    "CallError",
    "ChatClient",
    "ChatOptions",
    "ChatReply",
    "Check",
    "CliPin",
    "Configuration",
    "Deliverable",
    "ErrorInfo",
    "Evidence",
    "Executor",
    "ExecutorRecord",
    "FamilyMismatchError",
    "FileRefused",
    "GateReason",
    "GateResult",
    "Harness",
    "HarnessRecord",
    "HarnessResult",
    "ImageError",
    "InputSpec",
    "Inspection",
    "Judge",
    "JudgeRecord",
    "JudgeRequest",
    "Judgment",
    "JudgmentStatus",
    "Match",
    "Metric",
    "MetricRecord",
    "MetricValue",
    "ModelCall",
    "OcrLine",
    "OncePerKey",
    "Output",
    "Page",
    "PdfError",
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
    "Rubric",
    "RunStore",
    "SandboxPolicy",
    "SandboxResult",
    "SectionBuilder",
    "Signature",
    "Status",
    "Structured",
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
    "as_rgb",
    "border_colour",
    "cache_dir",
    "cached_match",
    "confined_files",
    "content_box",
    "counted_total",
    "data_url",
    "docs",
    "dpi_within",
    "err",
    "find_secrets",
    "first_page",
    "hookimpl",
    "image_signature",
    "import_litellm",
    "install_fix",
    "load_rubric",
    "locate",
    "open_image",
    "out",
    "png_bytes",
    "print_table",
    "process_cap",
    "read_confined",
    "read_text",
    "render_pages",
    "render_pages_bgr",
    "renderer_for",
    "run_sandboxed",
    "source_box",
    "source_sha256",
    "source_signature",
    "stable_hash",
    "structured_call",
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
    from refig.engine.plugins import renderer_for
    from refig.errors import FamilyMismatchError, RefigError, UsageError
    from refig.gateway.calls import ModelCall
    from refig.home import cache_dir
    from refig.images import (
        MAX_PIXELS,
        ImageError,
        as_rgb,
        border_colour,
        content_box,
        open_image,
        png_bytes,
    )
    from refig.judging import STAGE_OPTIONS
    from refig.llm import (
        IDENTITY,
        NO_KEY,
        CallError,
        ChatClient,
        ChatOptions,
        ChatReply,
        data_url,
        import_litellm,
    )
    from refig.llm.structured import AnswerRejected, Structured, structured_call
    from refig.locating.matching import Match, Signature
    from refig.locating.shared import (
        cached_match,
        image_signature,
        locate,
        source_box,
        source_signature,
    )
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
    from refig.ocr import DETECTOR_SIDE, OcrLine, read_text
    from refig.once import OncePerKey
    from refig.pdf import PdfError, dpi_within, first_page, render_pages, render_pages_bgr
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
    from refig.running.sandbox import SandboxPolicy
    from refig.store import RunStore
    from refig.suite import Suite, SuiteError, SuiteWriter
