"""Helpers for testing refig and its plugins against real parts."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from refig_toolkit_agent.gateway.calls import ModelCall

#: Flags for headless Debian Chromium on a machine with no network: without the background
#: networking ones it keeps trying to reach Google's hosts.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
)


def chromium_launch() -> dict[str, Any] | None:
    """Playwright ``chromium.launch`` arguments for the system Chromium, or None when absent.

    refig's browser tests drive Debian's ``chromium`` package (``apt-get install chromium``)
    rather than a browser downloaded by ``playwright install``.
    """
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        return None
    return {"executable_path": binary, "args": list(CHROMIUM_ARGS)}


def assert_hang_ends_at_deadline(harness: Any, *, timeout: float) -> list[ModelCall]:
    """Run ``harness`` against a model server that never answers and check the deadline holds.

    The attempt must end as a typed ``timeout`` long before the server's hour-long hang, and
    leave no process of its tree running. Returns the gateway's record of the calls, for checks
    a harness adds of its own.
    """
    from refig.running.processes import kill_tree

    from refig_toolkit_testing.scripted import Fault
    from refig_toolkit_testing.selfcheck import check_harness

    with check_harness(harness, faults=[Fault("hang")], timeout=timeout) as outcome:
        error = outcome.result.error
        assert error is not None and error.kind == "timeout", error
        assert outcome.seconds < 120, outcome.seconds  # the deadline, not the 3600 s hang
        assert kill_tree(marker=outcome.dirs.root.name) == 0  # nothing was left running
        return outcome.calls


def judge_request(
    artifact: Any, text: str | None = None, repeat: int = 0, rubric_path: Any = None
) -> Any:
    """The :class:`~refig.protocols.JudgeRequest` the judging stage would make for
    ``artifact``: the evidence framed by its installed family, with ``text`` in place of the
    family's (the object audit) when given, and the family's rubric unless ``rubric_path``."""
    import dataclasses

    from refig.engine.plugins import family_for
    from refig.plugin import JudgeRequest
    from refig.rubric import family_rubric

    evidence = family_for(artifact.family).evidence(artifact)
    if text is not None:
        evidence = dataclasses.replace(evidence, text=text)
    return JudgeRequest(artifact, evidence, repeat, rubric_path or family_rubric(artifact.family))
