"""How many times Claude Code may retry a refused call so that its retries end before the deadline.

Claude Code retries a 429, 5xx or lost connection ten times by default, waiting about
``0.5 * 2**i`` seconds before retry ``i`` (capped at 32 s, with up to 25 % jitter; measured on
the pinned version against the scripted server: calls at 0, 0.6, 1.7, 4.0, 8.9, 18.3, 36.0 s).
Against a provider that refuses every call those retries outlast a short deadline, and the
attempt ended as ``timeout`` instead of as what happened. refig sets ``CLAUDE_CODE_MAX_RETRIES``
to the most retries whose waits fit in half the time the attempt has left (never more than the
CLI's default), so the CLI gives up itself and the gateway's record types the failure.
"""

from __future__ import annotations

#: Claude Code's own default number of retries.
DEFAULT_RETRIES = 10
FIRST_WAIT = 0.5
LONGEST_WAIT = 32.0
JITTER = 1.25
#: The share of the remaining time the retries of one call may take.
SHARE = 0.5


def wait_before(retry: int) -> float:
    """The longest wait before retry ``retry`` (0-based)."""
    return min(FIRST_WAIT * 2**retry, LONGEST_WAIT) * JITTER


def retries_within(seconds: float) -> int:
    """The most retries (at most the default) whose waits fit in ``SHARE`` of ``seconds``."""
    allowed, waited = 0, 0.0
    while allowed < DEFAULT_RETRIES and waited + wait_before(allowed) <= SHARE * seconds:
        waited += wait_before(allowed)
        allowed += 1
    return allowed
