"""One attempt, from a fresh workspace to an :class:`~refig.models.Attempt` record.

:func:`run_attempt` is what an executor runs (in a thread, or in a Ray worker): it prepares the
workspace, calls the harness under a watchdog, collects and redacts the outputs, and returns them
as bytes with the record. It never touches the run store; the driver writes both with
:func:`record_outcome` (objects first, then the record, so a killed run leaves no partial record).
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from refig.confined import FileRefused, read_confined
from refig.models import (
    Attempt,
    AttemptStatus,
    Configuration,
    ErrorInfo,
    Output,
    Task,
    Usage,
    utcnow,
)
from refig.plugins import Selection
from refig.protocols import AttemptContext, Harness, HarnessResult
from refig.records import Deliverable
from refig.running.processes import kill_tree
from refig.running.redact import Redactor, find_secrets
from refig.running.sandbox import SandboxPolicy
from refig.running.workspace import AttemptDirs, attempt_env, write_inputs
from refig.store import RunStore

#: Files above this size are not stored (an agent filling the disk must not fill the run store).
MAX_OUTPUT_BYTES = 256 << 20
#: How long a harness may take to return after its processes were killed at the deadline.
GRACE_SECONDS = 15.0


#: The roles refig itself gives a harness's files beside the family's deliverables.
HARNESS_ROLES = (Output.TRANSCRIPT.value, Output.CALLS.value)


class UnknownRole(Exception):
    """A harness named an output under a role its task's family does not deliver."""


def delivered(workspace: Path, task: Task, deliverables: tuple[Deliverable, ...],
              result: HarnessResult) -> dict[str, Path | None]:
    """Where each output is, by role: the file the harness named, else for a deliverable the
    first workspace file matching its pattern (a name or a glob such as ``figure.*``).

    Raises :class:`UnknownRole` when the harness names a role neither the family's deliverables
    nor refig's own (``transcript``, ``calls``)."""
    roles = [d.role for d in deliverables]
    unknown = sorted(set(result.outputs) - {*roles, *HARNESS_ROLES})
    if unknown:
        raise UnknownRole(
            f"the harness named output {', '.join(map(repr, unknown))}, which the "
            f"{task.family} family does not deliver: its roles are {', '.join(roles)} "
            f"(and refig's {', '.join(HARNESS_ROLES)})")
    found: dict[str, Path | None] = {role: Path(path) for role, path in result.outputs.items()}
    for deliverable in deliverables:
        if found.get(deliverable.role) is None:
            matches = sorted(p for p in workspace.glob(deliverable.pattern)
                             if p.is_file() or p.is_symlink())
            found[deliverable.role] = matches[0] if matches else workspace / deliverable.pattern
    return found


@dataclass(frozen=True)
class AttemptJob:
    """Everything a worker needs to run one attempt; picklable, so Ray can ship it."""

    task: Task
    #: The task's visible inputs by role, as bytes (the primary one becomes ``source.<ext>``).
    inputs: dict[str, bytes]
    config: Configuration
    try_index: int
    harness: Selection
    workflow: Selection
    timeout: float
    sandbox: SandboxPolicy
    workspace_root: Path
    run_token: str
    keep_workspace: bool = False
    #: What the agent must leave in its workspace: the task family's deliverables.
    deliverables: tuple[Deliverable, ...] = field(kw_only=True)

    @property
    def attempt_id(self) -> str:
        """Unique per attempt; starts with the run token so one sweep can end a whole run."""
        config = hashlib.sha256(self.config.id.encode()).hexdigest()[:8]
        return f"{self.run_token}.{config}.{self.task.id}.{self.try_index}"


@dataclass(frozen=True)
class AttemptOutcome:
    """What a worker returns: the record and the (redacted) bytes of each output it names."""

    attempt: Attempt
    files: dict[str, bytes] = field(default_factory=dict)
    kept_workspace: Path | None = None


class OutputRefused(Exception):
    """An output file that refig will not read: a symlink, outside the attempt, or too large."""


def _read_output(path: Path, dirs: AttemptDirs) -> bytes:
    """Read a file the harness named, refusing links and paths outside the attempt."""
    try:
        return read_confined(path, dirs.root, max_bytes=MAX_OUTPUT_BYTES)
    except FileRefused as exc:
        raise OutputRefused(str(exc)) from None


def _watch(harness: Harness, ctx: AttemptContext) -> tuple[HarnessResult | None, ErrorInfo | None]:
    """Run ``harness.run(ctx)``; at the deadline end the attempt's processes, then give up."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["result"] = harness.run(ctx)
        except BaseException as exc:  # a broken adapter is a failed attempt, not a dead run
            box["error"] = exc

    thread = threading.Thread(target=target, name=f"harness-{ctx.attempt_id}", daemon=True)
    thread.start()
    thread.join(max(0.0, ctx.deadline - time.monotonic()))
    timed_out = thread.is_alive()
    if timed_out:
        kill_tree(marker=ctx.attempt_id)
        thread.join(GRACE_SECONDS)
        if thread.is_alive():
            message = f"the harness did not return within {GRACE_SECONDS:.0f}s of its deadline"
            return None, ErrorInfo(kind="timeout", message=message, retryable=True)
    if "error" in box:
        exc = box["error"]
        message = f"{type(exc).__name__}: {exc}"
        return None, ErrorInfo(kind="harness_error", message=message, retryable=True)
    result = box["result"]
    if not isinstance(result, HarnessResult):
        message = f"the harness returned {type(result).__name__}, not a HarnessResult"
        return None, ErrorInfo(kind="harness_error", message=message)
    if timed_out and (result.error is None or result.error.kind != "timeout"):
        message = "the attempt reached its deadline"
        return result, ErrorInfo(kind="timeout", message=message, retryable=True)
    return result, None


def _distribution_version(selection: Selection) -> str | None:
    try:
        return metadata.version(selection.distribution)
    except metadata.PackageNotFoundError:
        return None


def run_attempt(job: AttemptJob) -> AttemptOutcome:
    """Run one attempt start to finish; never writes the run store."""
    started_at, started = utcnow(), time.monotonic()
    deadline = started + job.timeout
    dirs = AttemptDirs.create(job.workspace_root, job.attempt_id)
    secrets = find_secrets()
    redactor = Redactor(secrets)
    files: dict[str, bytes] = {}
    result: HarnessResult | None = None
    error: ErrorInfo | None = None
    prompt = None
    ctx: AttemptContext | None = None
    notes: list[str] = [
        f"attempt {job.attempt_id}: task {job.task.id}, configuration {job.config.id}, "
        f"try {job.try_index}, timeout {job.timeout:g}s, sandbox {job.sandbox.mode}, "
        f"network {job.sandbox.reach}",
        f"workspace {dirs.workspace}",
    ]
    dirs.log.write_text("\n".join(notes) + "\n")
    notes.clear()
    try:
        source = write_inputs(dirs.workspace, job.task, job.inputs)
        try:
            workflow = job.workflow.create()
            prompt = workflow.prepare(dirs.workspace, job.task, job.harness.record.name)
            harness = job.harness.create(**job.config.harness_options)
        except Exception as exc:
            error = ErrorInfo(kind="setup_error", message=f"{type(exc).__name__}: {exc}")
        else:
            ctx = AttemptContext(
                task=job.task, workspace=dirs.workspace, source=source, prompt=prompt,
                model=job.config.model, deadline=deadline,
                env=attempt_env(dirs, job.attempt_id), options=job.config.harness_options,
                log=dirs.log, attempt_id=job.attempt_id, home=dirs.home,
                outputs_dir=dirs.outputs, secrets=secrets, sandbox=job.sandbox,
            )
            result, error = _watch(harness, ctx)
            # Nothing the attempt started may still run (and swap files) while its outputs are
            # read: an adapter that bypassed run_command may have left processes behind.
            kill_tree(marker=job.attempt_id)
        if result is not None:
            error = error or result.error
            try:
                named = delivered(dirs.workspace, job.task, job.deliverables, result)
            except UnknownRole as exc:
                named, error = {}, ErrorInfo(kind="harness_error", message=str(exc))
            primary = next(d for d in job.deliverables if d.primary)
            for role, path in named.items():
                if path is None or not (path.exists() or path.is_symlink()):
                    continue
                try:
                    files[role] = redactor.bytes(_read_output(Path(path), dirs))
                except (OutputRefused, OSError) as exc:
                    notes.append(f"output {role} not stored: {exc}")
                    if error is None and role == primary.role:
                        error = ErrorInfo(kind="output_refused", message=str(exc))
            if error is None and result.exit_code not in (0, None):
                error = ErrorInfo(kind="exit_status", message=f"exit code {result.exit_code}")
            missing = [d.pattern for d in job.deliverables
                       if (d.primary or d.required) and d.role not in files]
            if error is None and missing:
                error = ErrorInfo(kind="no_output",
                                  message=f"no {' and no '.join(missing)} was produced")
    finally:
        kill_tree(marker=job.attempt_id)
        wall = time.monotonic() - started
        status = AttemptStatus.SUCCEEDED if error is None else AttemptStatus.FAILED
        notes.append(f"{status.value} in {wall:.2f}s" + (f": {error.kind}: {error.message}"
                                                          if error else ""))
        with dirs.log.open("a") as log:
            log.write("\n".join(notes) + "\n")
        files[Output.LOG.value] = redactor.bytes(dirs.log.read_bytes())
        kept = None
        if job.keep_workspace:
            redactor.tree(dirs.root)
            dirs.keep()
            kept = dirs.root
        else:
            dirs.remove()
    attempt = Attempt(
        task_id=job.task.id,
        config_id=job.config.id,
        try_index=job.try_index,
        status=status,
        error=error,
        outputs={role: hashlib.sha256(data).hexdigest() for role, data in files.items()},
        turns=result.turns if result else None,
        usage=result.usage if result else Usage(),
        cost_usd=result.cost_usd if result else None,
        wall_seconds=wall,
        exit_code=result.exit_code if result else None,
        harness_version=(result.harness_version if result else None)
        or _distribution_version(job.harness),
        cli_version=result.cli_version if result else None,
        prompt_sha256=hashlib.sha256(prompt.text.encode()).hexdigest() if prompt else None,
        prompt_version=(prompt.version or None) if prompt else None,
        sandbox=job.sandbox.mode,
        network=job.sandbox.reach,
        processes=list(ctx.processes) if ctx is not None else [],
        started_at=started_at,
        finished_at=utcnow(),
    )
    return AttemptOutcome(attempt=attempt, files=files, kept_workspace=kept)


def failed_outcome(job: AttemptJob, exc: BaseException) -> AttemptOutcome:
    """The record of an attempt whose worker raised or was lost (typed, retryable)."""
    kind = "worker_lost" if "Worker" in type(exc).__name__ else "internal_error"
    return AttemptOutcome(Attempt(
        task_id=job.task.id, config_id=job.config.id, try_index=job.try_index,
        status=AttemptStatus.FAILED, sandbox=job.sandbox.mode,
        error=ErrorInfo(kind=kind, message=f"{type(exc).__name__}: {exc}", retryable=True),
    ))


def record_outcome(store: RunStore, outcome: AttemptOutcome) -> bool:
    """Write the outputs, then the record; False when the attempt was already recorded."""
    for role, data in outcome.files.items():
        sha = store.objects.put_bytes(data)
        if sha != outcome.attempt.outputs.get(role):
            raise RuntimeError(f"output {role} changed in transit ({sha})")
    return store.put(outcome.attempt)
