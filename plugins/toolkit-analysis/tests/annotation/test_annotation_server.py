"""The annotation HTTP server on 127.0.0.1: page, JSON actions, images, limits, concurrency, CLI."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from refig.cli import run as cli
from refig.models import Attempt, Configuration, Preference
from refig.store import RunStore
from refig_toolkit_analysis.annotation import server as server_module
from refig_toolkit_analysis.annotation.candidates import load_candidates
from refig_toolkit_analysis.annotation.planner import build_plan
from refig_toolkit_analysis.annotation.server import AnnotationServer
from refig_toolkit_analysis.annotation.session import Session


@pytest.fixture
def served(make_run) -> Iterator[tuple[AnnotationServer, RunStore]]:
    store = make_run()
    candidates = load_candidates(store)
    session = Session(store, candidates, build_plan(candidates, seed=0))
    server = AnnotationServer(session, "127.0.0.1", 0).start()
    try:
        yield server, store
    finally:
        server.stop()


def _request(
    server: AnnotationServer,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json"} if data is not None else {}
    conn.request(method, path, body=data, headers={**sent, **(headers or {})})
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), payload


def _json(server: AnnotationServer, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    status, _, payload = _request(server, method, path, body)
    return status, json.loads(payload)


def test_page_state_and_images(served, owners) -> None:
    server, store = served
    status, headers, page = _request(server, "GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert b'src="/static/common.js"' in page and b'src="/static/page.js"' in page
    for name, kind in (("page.js", "text/javascript"), ("common.js", "text/javascript"),
                       ("style.css", "text/css")):
        status, headers, body = _request(server, "GET", f"/static/{name}")
        assert status == 200 and headers["Content-Type"].startswith(kind)
        if name == "page.js":  # the comparison session's own script
            assert body == _request(server, "GET", "/static/app.js")[2] and b"/api/vote" in body
    planned = len(server.session.plan.items)
    assert planned > 20
    status, state = _json(server, "GET", "/api/state?annotator=alice")
    assert status == 200 and state["progress"] == {"done": 0, "planned": planned, "votes": 0}
    item = state["item"]
    for url in (item["source"], item["left"]["image"], item["right"]["image"]):
        status, headers, body = _request(server, "GET", url)
        sha = url.removeprefix("/img/")
        assert status == 200 and headers["Content-Type"] == "image/png"
        assert body == store.objects.read_bytes(sha) and "immutable" in headers["Cache-Control"]
    assert {item["left"]["image"], item["right"]["image"]} <= {f"/img/{p}" for p in owners(store)}
    slide = next(a.output("slide") for a in store.iter(Attempt) if a.output("slide"))
    for path in (f"/img/{slide}", "/img/../refig.db", "/nothing"):
        assert _request(server, "GET", path)[0] == 404  # only the plan's images are served


def test_the_api_never_names_a_configuration(served) -> None:
    server, store = served
    names = [c.id for c in store.iter(Configuration)] + ["specialized"]  # (tokens are random)
    answers = [_request(server, "GET", "/api/session")[2]]
    for _ in range(6):
        state = _json(server, "GET", "/api/state?annotator=carol")[1]
        answers.append(json.dumps(state).encode())
        body = {"annotator": "carol", "token": state["item"]["token"], "choice": "tie"}
        answers.append(_request(server, "POST", "/api/vote", body)[2])
    answers.append(_request(server, "POST", "/api/undo", {"annotator": "carol"})[2])
    text = b"\n".join(answers).decode()
    assert not [n for n in names if n in text]


def test_requests_are_checked(served) -> None:
    server, store = served
    token = _json(server, "GET", "/api/state?annotator=dan")[1]["item"]["token"]
    vote = {"annotator": "dan", "token": token, "choice": "A"}
    assert _request(server, "POST", "/api/vote", vote, {"Content-Type": "text/plain"})[0] == 415
    assert _request(server, "POST", "/api/vote", b"x" * 20_000)[0] == 413
    assert _request(server, "POST", "/api/vote", b"[1, 2]")[0] == 400
    assert _json(server, "POST", "/api/vote", {**vote, "choice": "C"})[0] == 400
    assert _json(server, "POST", "/api/vote", {**vote, "token": "stale"})[0] == 409
    assert _json(server, "POST", "/api/vote", {**vote, "annotator": "d a n"})[0] == 400
    assert _json(server, "POST", "/api/undo", {"annotator": "dan"})[0] == 409
    assert _request(server, "GET", "/api/session", headers={"Host": "evil.example"})[0] == 421
    assert store.count(Preference) == 0
    assert _json(server, "POST", "/api/vote", {**vote, "id": "same-id-123456"})[0] == 200
    assert _json(server, "POST", "/api/vote", {**vote, "id": "same-id-123456"})[0] == 200
    assert store.count(Preference) == 1


def test_malformed_and_stalled_requests_do_not_hold_the_server(make_run, monkeypatch) -> None:
    monkeypatch.setattr(server_module, "IDLE_SECONDS", 0.5)
    store = make_run(tasks=2, configs=2)
    candidates = load_candidates(store)
    server = AnnotationServer(Session(store, candidates, build_plan(candidates)), "127.0.0.1", 0)
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as garbage:
            garbage.sendall(b"\x00\x01 not http\r\n\r\n")
            answer = b"".join(iter(lambda: garbage.recv(4096), b""))
            assert b"400 - Bad request syntax" in answer
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as stalled:
            stalled.sendall(
                b"POST /api/vote HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"annot"
            )
            assert _request(server, "GET", "/api/session")[0] == 200  # served meanwhile
            assert stalled.recv(1024) == b""  # the short body is given up on: no answer
    finally:
        server.stop()
    assert store.count(Preference) == 0


def test_many_annotators_at_once(served) -> None:
    """Six annotators vote through the whole plan in parallel threads: SQLite keeps every vote."""
    server, store = served
    errors: list[str] = []

    def annotate(name: str) -> None:
        state = _json(server, "GET", f"/api/state?annotator={name}")[1]
        while state["item"] is not None:
            body = {"annotator": name, "token": state["item"]["token"], "choice": "A"}
            status, state = _json(server, "POST", "/api/vote", body)
            if status != 200:
                errors.append(f"{name}: {status} {state}")
                return

    threads = [threading.Thread(target=annotate, args=(f"ann{k}",)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    votes = list(store.iter(Preference))
    per_item = Counter((v.annotator, v.task_id, *sorted((v.left, v.right))) for v in votes)
    assert len(votes) == 6 * len(server.session.plan.items) and set(per_item.values()) == {1}


def test_cli_says_why_nothing_can_be_annotated(make_run, capsys) -> None:
    alone = make_run("alone", tasks=3, configs=1)
    assert cli(["annotate", str(alone.root), "--no-open"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "nothing to annotate: the run has one configuration" in said
    failed = make_run("failed", tasks=2, configs=3, gate_failures=1.0)
    assert cli(["annotate", str(failed.root), "--no-open"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "no task has gate-passing renderings from two configurations" in said
    assert "failed the gate" in said and "fix: run `refig evaluate RUN`" in said


def test_cli_refuses_a_busy_port_and_a_bad_name(make_run, capsys) -> None:
    store = make_run(tasks=2, configs=2)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli(["annotate", str(store.root), "--port", str(port), "--no-open"]) == 1
    assert "--port 0" in capsys.readouterr().err
    assert cli(["annotate", str(store.root), "--annotator", "a b", "--no-open"]) == 2
