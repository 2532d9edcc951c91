"""A judge server that cannot be reached is typed ``connection`` and judged again next run.

Real sockets on 127.0.0.1: a port nobody listens on (refused) and a listener that resets every
connection; litellm reports both as ``InternalServerError: Connection error``.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator

import pytest
from refig.judging import SelectedJudge, judge_artifacts
from refig.models import Judgment, JudgmentStatus
from refig.rubric import load_rubric
from refig.store import RunStore
from refig.traffic import RetryPolicy
from refig_judge_rubric.judge import build_judge
from refig_toolkit_testing.judge_server import JudgeStandIn, sample_artifacts

ONE_CALL = RetryPolicy(attempts=1)


def refused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def resetting() -> Iterator[int]:
    """A listener that accepts each connection, reads a little and resets it (RST)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(2)
            with contextlib.suppress(OSError):
                conn.recv(1024)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    listener.close()


def judge_at(url: str):
    return build_judge("litellm:openai/judge-x", {"api_base": url, "timeout": "20"},
                       {"model": "openai/judge-x"})


def judge_once(store: RunStore, artifacts, url: str) -> Judgment:
    judge = judge_at(url)
    judge_artifacts(store, artifacts, [SelectedJudge(judge.label, judge, ONE_CALL)], quiet=True,
                    rubric=load_rubric(family="figure-to-slide"))
    (stored,) = store.query(Judgment)
    return stored


@pytest.mark.parametrize("how", ["refused", "reset"])
def test_an_unreachable_server_is_a_connection_failure_retried_next_run(tmp_path, resetting, how):
    artifacts = sample_artifacts(tmp_path / "art", 1)
    store = RunStore.create(tmp_path / "run")
    port = refused_port() if how == "refused" else resetting
    failed = judge_once(store, artifacts, f"http://127.0.0.1:{port}/v1")
    assert failed.status is JudgmentStatus.FAILED
    assert (failed.error.kind, failed.error.retryable) == ("connection", True), failed.error
    with JudgeStandIn() as server:  # the server is back: the next run judges it again
        judged = judge_once(store, artifacts, server.url)
    assert server.calls == 1 and judged.status is JudgmentStatus.OK
