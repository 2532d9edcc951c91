"""The recording gateway: a pass-through proxy on 127.0.0.1 between a harness and its provider.

The agent is given the gateway's URL and a dummy key; the gateway swaps in the real key, forwards
each request unchanged to the upstream (streamed responses are passed on chunk by chunk as they
arrive), and records every call: API, model, status, tokens, latency. One gateway serves one
attempt, so its record is that attempt's calls.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.client import HTTPResponse
from pathlib import Path
from typing import Any

from refig_toolkit_agent.gateway.calls import ModelCall, priced, status_kind
from refig_toolkit_agent.gateway.pricing import PriceTable
from refig_toolkit_agent.gateway.usage import Api, api_of, parse_response
from refig_toolkit_agent.httpserver import CutStream, LocalServer, Request, Response

DUMMY_KEY = "sk-refig-gateway-dummy-key"
READ_TIMEOUT = 900.0
MAX_RECORDED_BODY = 64 * 1024 * 1024
CHUNK = 64 * 1024

# Never forwarded: hop-by-hop headers, the agent's (dummy) credentials, and encodings we must read.
_DROP_REQUEST = {"host", "connection", "content-length", "transfer-encoding", "accept-encoding",
                 "authorization", "x-api-key", "api-key", "proxy-authorization", "keep-alive"}
_DROP_RESPONSE = {"connection", "content-length", "transfer-encoding", "content-encoding",
                  "keep-alive", "server", "date"}


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


@dataclass(frozen=True)
class Upstream:
    """Where the gateway forwards, and how it authenticates there.

    ``mount`` is the path prefix the agent's base URL carries (``/v1`` for OpenAI-style clients,
    whose base URLs end in ``/v1``); it is replaced by ``base_url``. ``auth`` is ``x-api-key``
    (Anthropic) or ``bearer`` (OpenAI-compatible).
    """

    base_url: str
    key: str | None = None
    auth: str = "bearer"
    mount: str = ""

    def url(self, path: str) -> str:
        rest = path[len(self.mount):] if self.mount and path.startswith(self.mount) else path
        return self.base_url.rstrip("/") + rest

    def auth_headers(self) -> dict[str, str]:
        if not self.key:
            return {}
        if self.auth == "x-api-key":
            return {"x-api-key": self.key}
        return {"Authorization": f"Bearer {self.key}"}


class Gateway:
    """Serve the pass-through proxy until :meth:`stop`; ``calls`` is the record so far.

    ``log`` (a JSONL path) receives each call as it ends, so a killed attempt keeps its calls.
    """

    def __init__(self, upstream: Upstream, *, prices: PriceTable | None = None,
                 log: Path | None = None, read_timeout: float = READ_TIMEOUT):
        self.upstream = upstream
        self.prices = prices or PriceTable.load()
        self.log = log
        self.read_timeout = read_timeout
        self.calls: list[ModelCall] = []
        self._issued = 0
        self._inflight: dict[int, dict[str, Any]] = {}
        self._done: set[int] = set()
        self._lock = threading.Lock()
        self._server = LocalServer(self._handle, keep_requests=False)

    @property
    def url(self) -> str:
        """The agent's base URL: the gateway address plus the upstream's mount."""
        return self._server.url + self.upstream.mount

    def start(self) -> Gateway:
        if self.log is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            self.log.write_text("")
        self._server.start()
        return self

    def stop(self) -> None:
        """Stop serving; calls still in flight (the agent was ended) are recorded as aborted."""
        self._server.stop()
        with self._lock:
            pending = list(self._inflight.values())
        for base in pending:
            self._finish(ModelCall(**base, error="aborted",
                                   message="the attempt ended while this call was in flight"))

    def __enter__(self) -> Gateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_index(self) -> int:
        with self._lock:
            self._issued += 1
            return self._issued - 1

    def _finish(self, call: ModelCall) -> None:
        call = priced(call, self.prices)
        with self._lock:
            if call.index in self._done:
                return  # recorded as aborted at stop(), or the reverse
            self._done.add(call.index)
            self._inflight.pop(call.index, None)
            self.calls.append(call)
            self.calls.sort(key=lambda c: c.index)
            if self.log is not None:
                with self.log.open("a") as handle:
                    handle.write(json.dumps(call.model_dump(mode="json")) + "\n")

    def _handle(self, request: Request) -> Response:
        api = api_of(request.method, request.path)
        body: dict[str, Any] = {}
        if api is not Api.OTHER:
            try:
                parsed = json.loads(request.body or b"{}")
                body = parsed if isinstance(parsed, dict) else {}
            except ValueError:
                body = {}
        base: dict[str, Any] = {
            "index": self._next_index(), "api": api, "method": request.method,
            "path": request.path.split("?", 1)[0], "model": body.get("model"),
            "stream": bool(body.get("stream")), "started_at": time.time(),
            "request_bytes": len(request.body),
        }
        with self._lock:
            self._inflight[base["index"]] = base
        started = time.monotonic()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _DROP_REQUEST}
        headers.update(self.upstream.auth_headers())
        headers["Accept-Encoding"] = "identity"
        upstream_request = urllib.request.Request(
            self.upstream.url(request.path), data=request.body or None, headers=headers,
            method=request.method,
        )
        reply: HTTPResponse | urllib.error.HTTPError  # an HTTPError is the error response
        try:
            reply = urllib.request.urlopen(upstream_request, timeout=self.read_timeout)
        except urllib.error.HTTPError as exc:
            reply = exc
        except (urllib.error.URLError, OSError) as exc:
            message = str(getattr(exc, "reason", exc))
            self._finish(ModelCall(**base, error="upstream_unreachable", message=message,
                                   latency_seconds=time.monotonic() - started))
            return Response.json({"error": {"type": "api_error",
                                            "message": f"refig gateway: upstream {message}"}},
                                 status=502)
        status = reply.status if reply.status is not None else 502
        first_byte = time.monotonic() - started
        out_headers = {k: v for k, v in reply.headers.items()
                       if k.lower() not in _DROP_RESPONSE}
        request_id = reply.headers.get("request-id") or reply.headers.get("x-request-id")
        base = {**base, "status": status, "first_byte_seconds": first_byte,
                "request_id": request_id, "retry_after": _seconds(reply.headers.get("retry-after"))}
        if "text/event-stream" in (reply.headers.get("Content-Type") or ""):
            return Response(status=status, headers=out_headers,
                            chunks=self._relay(reply, api, base, started))
        try:
            content = reply.read()
        except (OSError, http.client.HTTPException) as exc:
            self._finish(ModelCall(**base, error="stream_error", message=str(exc),
                                   latency_seconds=time.monotonic() - started))
            return Response.json({"error": {"type": "api_error", "message": str(exc)}}, 502)
        finally:
            reply.close()
        self._record(api, base, content, stream=False, started=started)
        return Response(status=status, headers=out_headers, body=content)

    def _relay(self, reply: HTTPResponse | urllib.error.HTTPError, api: Api, base: dict[str, Any],
               started: float) -> Iterator[bytes]:
        """Pass a streamed body on as it arrives, keeping a copy to read tokens from at the end."""
        kept = bytearray()
        broken = ""
        try:
            while chunk := reply.read1(CHUNK):
                if len(kept) < MAX_RECORDED_BODY:
                    kept.extend(chunk)
                yield chunk
        except (OSError, http.client.HTTPException) as exc:
            broken = f"upstream stream broke: {exc!r}"
        finally:
            reply.close()
            self._record(api, base, bytes(kept), stream=True, started=started, broken=broken)
        if broken:
            raise CutStream(broken)  # the agent sees the stream break as the upstream broke it

    def _record(self, api: Api, base: dict[str, Any], content: bytes, *, stream: bool,
                started: float, broken: str = "") -> None:
        status = base["status"]
        fields: dict[str, Any] = {"response_bytes": len(content),
                                  "latency_seconds": time.monotonic() - started}
        if api is Api.OTHER:
            kind = status_kind(status)
            self._finish(ModelCall(**base, **fields, ok=kind is None, error=kind))
            return
        parsed = parse_response(api, content, stream=stream)
        error = status_kind(status) or parsed.error or ("stream_error" if broken else None)
        message = broken or parsed.message
        if error is not None and not message:
            message = content[:300].decode("utf-8", errors="replace")
        tokens = parsed.tokens
        self._finish(ModelCall(
            **{**base, "model": parsed.model or base["model"]}, **fields,
            ok=error is None, error=error, message=message,
            input_tokens=tokens.input, output_tokens=tokens.output, cached_tokens=tokens.cached,
            cache_write_tokens=tokens.cache_write, reasoning_tokens=tokens.reasoning,
            usage_reported=parsed.reported,
        ))
