"""The stand-in server speaks real HTTP: JSON, streamed SSE, delays and cut connections."""

import http.client
import json
import threading
import time

import pytest
from refig_toolkit_agent.httpserver import MAX_REQUEST_BYTES, LocalServer, Response


def _handler(request):
    if request.path == "/json":
        return Response.json({"echo": request.json()}, headers={"X-Test": "1"})
    if request.path == "/sse":
        return Response.sse([("start", {"n": 1}), (None, "[DONE]")])
    if request.path == "/cut":
        return Response.sse([(None, {"i": i}) for i in range(10)], cut_after=2)
    return Response.json({"error": "nope"}, status=404, delay=0.2)


@pytest.fixture
def server():
    with LocalServer(_handler) as srv:
        yield srv


def _conn(server):
    host, port = server.url.removeprefix("http://").split(":")
    return http.client.HTTPConnection(host, int(port), timeout=5)


def test_json_round_trip_is_recorded(server):
    conn = _conn(server)
    conn.request("POST", "/json", body=json.dumps({"a": 1}), headers={"Content-Type": "x"})
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("X-Test") == "1"
    assert json.loads(response.read()) == {"echo": {"a": 1}}
    assert [r.path for r in server.requests] == ["/json"]
    assert server.requests[0].json() == {"a": 1}


def test_sse_is_streamed_in_chunks(server):
    conn = _conn(server)
    conn.request("GET", "/sse")
    response = conn.getresponse()
    assert response.getheader("Transfer-Encoding") == "chunked"
    assert response.read().decode() == 'event: start\ndata: {"n": 1}\n\ndata: [DONE]\n\n'


def test_cut_stream_raises_in_client(server):
    conn = _conn(server)
    conn.request("GET", "/cut")
    response = conn.getresponse()
    with pytest.raises(http.client.IncompleteRead):
        response.read()


def test_delay_and_status(server):
    conn = _conn(server)
    started = time.monotonic()
    conn.request("GET", "/missing")
    response = conn.getresponse()
    assert response.status == 404
    assert time.monotonic() - started >= 0.2


def test_an_oversized_or_malformed_body_is_refused_unread(server):
    conn = _conn(server)
    conn.putrequest("POST", "/json")
    conn.putheader("Content-Length", str(MAX_REQUEST_BYTES + 1))
    conn.endheaders()  # no body follows: the server must answer without waiting for it
    assert conn.getresponse().status == 413
    conn = _conn(server)
    conn.putrequest("POST", "/json")
    conn.putheader("Content-Length", "lots")
    conn.endheaders()
    assert conn.getresponse().status == 400
    assert server.requests == []


def test_stopping_a_server_that_never_started_returns():
    never = LocalServer(_handler)
    done = threading.Event()
    stopper = threading.Thread(target=lambda: (never.stop(), done.set()), daemon=True)
    stopper.start()
    assert done.wait(30), "stop() hung waiting for a serve loop that never ran"
