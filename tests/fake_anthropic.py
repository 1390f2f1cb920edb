"""A fake Anthropic Messages API on 127.0.0.1 that the real SDK can talk to.

Use it from any test:

    server = start_fake_server()              # or: with start_fake_server() as server:
    server.enqueue(Reply([text_block("hi")]), HttpError(529))
    provider = AnthropicProvider("test-key", "claude-test", base_url=server.base_url)
    ...
    server.requests[-1].body                  # every request, as parsed JSON
    server.stop()

Every POST /v1/messages is recorded, then checked as strictly as the real API checks it
(`fake_anthropic_rules`); a bad request gets a 400 `invalid_request_error`. A good one is
answered by the next queued script (`Reply` or a fault: `HttpError`, `StreamError`,
`DropConnection`, `Stall`, `MalformedEvent`, `EndStreamEarly`; a `RawAnswer` is sent as
it is, for an endpoint that is not the API) or, when the queue is empty, by
`server.responder(body)` (default: echo the last user text). GET /v1/models lists
`server.models`, or answers `server.models_answer` as it is when a test sets one.
Streams are SSE with `event:` and `data:` lines over chunked HTTP/1.1, like the real API
(a `Reply` with `first_token_delay` waits that long before its first content block, one with
`held_until` until the test sets that event). Usage counts system +
tools + messages and splits them into plain input, cache writes and cache reads with a
model of the API's prefix cache (`bench.prompt_cache`, the one the benches price with;
pass `prompt_cache=` to change its minimum or clock). `server.usage_for(body)` is the hook that answers usage.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fake_anthropic_models import DEFAULT_MODELS, RawAnswer, build_models_page
from fake_anthropic_rules import RequestRejected, validate_headers, validate_request
from fake_anthropic_stream import (
    DropConnection,
    EndStreamEarly,
    HttpError,
    MalformedEvent,
    Reply,
    Script,
    Stall,
    StreamError,
    build_message_json,
    build_reply_events,
    echo_responder,
    text_block,
    tool_use_block,
)

from bench.prompt_cache import PromptCacheModel

__all__ = [
    "DropConnection",
    "EndStreamEarly",
    "FakeAnthropicServer",
    "HttpError",
    "MalformedEvent",
    "RawAnswer",
    "RecordedRequest",
    "Reply",
    "Stall",
    "StreamError",
    "start_fake_server",
    "text_block",
    "tool_use_block",
]

# What a message request can be answered with: a script, or bytes sent as they are.
MessageScript = Script | RawAnswer
HELD_POLL_SECONDS = 0.05  # how often a held reply looks whether the server stops


@dataclass
class RecordedRequest:
    """One request as received: headers (lower-case names), parsed body, and the verdict."""

    path: str
    headers: dict[str, str]
    body: Any
    rejection: str | None = None  # the 4xx message when the fake refused it


@dataclass
class FakeAnthropicServer:
    """A running fake; see the module docstring. Thread-safe for one test at a time."""

    httpd: ThreadingHTTPServer
    api_key: str | None = None
    responder: Callable[[dict[str, Any]], Reply] = echo_responder
    requests: list[RecordedRequest] = field(default_factory=list)
    scripts: deque[MessageScript] = field(default_factory=deque)
    prompt_cache: PromptCacheModel = field(default_factory=PromptCacheModel)
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # GET /v1/models lists these (id, display name, lifecycle); None: the route is a 404
    models: tuple[tuple[str, str, str], ...] | None = DEFAULT_MODELS
    models_answer: RawAnswer | None = None  # when set, GET /v1/models answers this instead

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def accepted(self) -> list[dict[str, Any]]:
        """Bodies of the message requests that passed validation, in order."""
        return [r.body for r in self.requests if r.rejection is None and r.body is not None]

    def enqueue(self, *scripts: MessageScript) -> None:
        with self.lock:
            self.scripts.extend(scripts)

    def next_script(self, body: dict[str, Any]) -> MessageScript:
        with self.lock:
            if self.scripts:
                return self.scripts.popleft()
        return self.responder(body)

    def next_script_stalls(self) -> bool:
        """True when the next request will meet a `Stall`: a client can then use a short
        timeout for that request alone and a generous one for every normal reply."""
        with self.lock:
            return bool(self.scripts) and isinstance(self.scripts[0], Stall)

    def short_timeout_for_stalls(self, stall_timeout: float, normal: float = 30.0):
        """An `attempt_timeout` for `AnthropicProvider`: `stall_timeout` for an attempt
        that will meet a stall, `normal` for the others (a loaded machine may be slow)."""
        return lambda: stall_timeout if self.next_script_stalls() else normal

    def usage_for(self, body: dict[str, Any]) -> dict[str, int]:
        """The usage reported for an accepted request (the prompt cache model's figures)."""
        return self.prompt_cache.usage(body)

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeAnthropicServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def start_fake_server(
    *,
    api_key: str | None = None,
    responder: Callable[[dict[str, Any]], Reply] = echo_responder,
    prompt_cache: PromptCacheModel | None = None,
) -> FakeAnthropicServer:
    """Start a fake on an ephemeral loopback port; `api_key` set means others get a 401."""
    httpd = _QuietServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    httpd.block_on_close = False  # a stalled handler must not hold up stop()
    server = FakeAnthropicServer(
        httpd=httpd,
        api_key=api_key,
        responder=responder,
        prompt_cache=prompt_cache or PromptCacheModel(),
    )
    httpd.fake = server  # type: ignore[attr-defined]
    threading.Thread(
        target=httpd.serve_forever,
        kwargs={"poll_interval": 0.02},
        name="fake-anthropic",
        daemon=True,
    ).start()
    return server


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (after a timeout, say) is expected; anything else is not."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep tests quiet
        return

    @property
    def fake(self) -> FakeAnthropicServer:
        return self.server.fake  # type: ignore[attr-defined]

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        headers = {name.lower(): value for name, value in self.headers.items()}
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        record = RecordedRequest(self.path, headers, None)
        self.fake.requests.append(record)
        try:
            record.body = _parse_body(raw)
            if self.path.split("?")[0] != "/v1/messages":
                raise RequestRejected(404, "not_found_error", f"Not found: {self.path}")
            validate_headers(headers, self.fake.api_key)
            validate_request(record.body, headers["anthropic-version"])
        except RequestRejected as rejected:
            record.rejection = rejected.message
            self._send_error(rejected.status, rejected.error_type, rejected.message)
            return
        self._answer(record.body, self.fake.next_script(record.body))

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        """The Models API (see `fake_anthropic_models`); recorded like every request."""
        headers = {name.lower(): value for name, value in self.headers.items()}
        record = RecordedRequest(self.path, headers, None)
        self.fake.requests.append(record)
        try:
            validate_headers(headers, self.fake.api_key)
            if self.path.split("?")[0] != "/v1/models" or self.fake.models is None:
                raise RequestRejected(404, "not_found_error", f"Not found: {self.path}")
        except RequestRejected as rejected:
            record.rejection = rejected.message
            self._send_error(rejected.status, rejected.error_type, rejected.message)
            return
        raw = self.fake.models_answer
        if raw is not None:
            self._send_raw(raw)
            return
        self._send_json(200, build_models_page(self.fake.models))

    def _send_raw(self, raw: RawAnswer) -> None:
        self.send_response(raw.status)
        self.send_header("content-type", raw.content_type)
        self.send_header("content-length", str(len(raw.body)))
        self.send_header("request-id", "req_fake")
        self.end_headers()
        self.wfile.write(raw.body)
        self.wfile.flush()

    def _answer(self, body: dict[str, Any], script: MessageScript) -> None:
        if isinstance(script, RawAnswer):
            self._send_raw(script)
            return
        if isinstance(script, HttpError):
            self._send_error(
                script.status, script.error_type, script.message, script.response_headers()
            )
            return
        reply = script if isinstance(script, Reply) else script.reply
        usage = self.fake.usage_for(body)
        if not body.get("stream"):
            self._send_json(200, build_message_json(body, reply, usage))
            return
        events = build_reply_events(body, reply, usage)
        self._stream(events, script)

    def _stream(self, events: list[tuple[str, dict[str, Any]]], script: Script) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_fake")
        self.end_headers()
        cut = len(events) if isinstance(script, Reply) else min(script.after_events, len(events))
        thinking = isinstance(script, Reply)
        for name, data in events[:cut]:
            if name == "content_block_start" and thinking:
                self._think(script)  # the model takes its time to begin
                thinking = False
            self._send_chunk(f"event: {name}\ndata: {json.dumps(data)}\n\n")
        if isinstance(script, StreamError):
            error = {
                "type": "error",
                "error": {"type": script.error_type, "message": script.message},
            }
            self._send_chunk(f"event: error\ndata: {json.dumps(error)}\n\n")
        elif isinstance(script, MalformedEvent):
            self._send_chunk(f"event: {script.event_name}\ndata: {script.payload}\n\n")
        elif isinstance(script, Stall):
            self._stall(script)
        if isinstance(script, DropConnection | Stall):
            self.close_connection = True  # no final chunk: the client sees a broken body
            return
        self._send_chunk("")

    def _think(self, reply: Reply) -> None:
        """Wait for `reply.held_until` (if any) to be set, then `first_token_delay`
        seconds; a stopping server ends either wait."""
        if reply.held_until is not None:
            while not reply.held_until.wait(HELD_POLL_SECONDS) and not self.fake.stopping.is_set():
                pass
        if reply.first_token_delay:
            self.fake.stopping.wait(reply.first_token_delay)

    def _stall(self, stall: Stall) -> None:
        if stall.ping_every is None:
            self.fake.stopping.wait(stall.seconds)
            return
        ends = time.monotonic() + stall.seconds
        while time.monotonic() < ends and not self.fake.stopping.wait(stall.ping_every):
            try:
                self._send_chunk('event: ping\ndata: {"type": "ping"}\n\n')
            except OSError:  # the client gave up and closed the connection
                return

    def _send_chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send_error(
        self,
        status: int,
        error_type: str,
        message: str,
        extra_headers: dict[str, str] | None = None,
    ) -> None:
        body = {"type": "error", "error": {"type": error_type, "message": message}}
        self._send_json(status, body, extra_headers)

    def _send_json(
        self, status: int, body: dict[str, Any], extra_headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake")
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def tool_result_texts(body: dict[str, Any]) -> list[str]:
    """The text of every tool_result a request body carries (its first block's, for a list),
    in order: what a test reads to see what the model was sent of each tool."""
    texts = []
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                texts.append(content if isinstance(content, str) else content[0]["text"])
    return texts


def _parse_body(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError as err:
        raise RequestRejected(
            400, "invalid_request_error", "There was an issue with the request body: not valid JSON"
        ) from err
