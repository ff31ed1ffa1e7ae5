"""A real HTTP server that speaks OpenAI's embeddings API, for tests of the `openai` path.

    with FakeOpenAI(api_key="test-key") as server:
        server.script(["429:2", "500", "ok"])   # the next three requests, in turn
        server.delay = 3.0                       # every answer after this many seconds
        server.prompt = {"dimension probe"}      # ...but answers to these inputs at once
        server.dimension = 1536                  # vectors of this size, whatever is asked

Behaviours in a script: "ok"; "<status>" (an OpenAI-style error body, e.g. "500", "401");
"429:<seconds>" (with Retry-After); "429ms:<milliseconds>" (with retry-after-ms); "short"
(one vector fewer than inputs). Without a script every request is "ok". Vectors are
`vector_for(text, n)`, exact in float32, so "float" and "base64" answers compare equal.
"""

import base64
import contextlib
import hashlib
import json
import struct
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.scripted import ScriptedServer

NATIVE_DIMENSION = 1536  # text-embedding-3-small's, when `dimensions` is not sent
MODELS = {"text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002"}


def vector_for(text: str, dimension: int) -> list[float]:
    """A deterministic vector per text, with values k/128 that float32 keeps exactly."""
    seed = hashlib.sha256(text.encode()).digest()
    stream = b"".join(
        hashlib.sha256(seed + block.to_bytes(4, "big")).digest()
        for block in range(dimension // 32 + 1)
    )
    return [(byte - 128) / 128 for byte in stream[:dimension]]


class FakeOpenAI(ScriptedServer):
    """POST /v1/embeddings on 127.0.0.1 (or `host`: a test host's bridge), in a thread;
    counts what it sees."""

    def __init__(self, *, api_key: str | None = None, host: str = "127.0.0.1") -> None:
        super().__init__(_Handler, host)
        self.api_key = api_key
        # Requests whose inputs are all among these are answered without `delay` (a
        # worker's start-up probe, while the job's embeddings hang).
        self.prompt: set[str] = set()
        self.dimension: int | None = None

    @property
    def inputs(self) -> int:
        """Texts received so far, over all requests."""
        return sum(len(_inputs(body)) for body in self.requests)


def _inputs(body: dict[str, Any]) -> list[Any]:
    value = body.get("input")
    return [value] if isinstance(value, str) else list(value or [])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the client expects

    @property
    def fake(self) -> FakeOpenAI:
        return self.server.fake  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet test output

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path.rstrip("/") != "/v1/embeddings":
            return self._error(404, f"Unknown request URL: POST {self.path}.", "unknown_url")
        behaviour = self.fake._next_behaviour(body)
        texts = _inputs(body)
        prompt = bool(texts) and all(
            isinstance(text, str) and text in self.fake.prompt for text in texts
        )
        if not prompt and self.fake._stopping.wait(self.fake.delay):
            return
        # The client may have given up waiting (a timeout test).
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(behaviour, body)

    def _answer(self, behaviour: str, body: dict[str, Any]) -> None:
        if self.fake.api_key and self.headers.get("Authorization") != f"Bearer {self.fake.api_key}":
            sent = self.headers.get("Authorization", "").removeprefix("Bearer ")
            masked = f"{sent[:3]}***{sent[-2:]}"
            message = (
                f"Incorrect API key provided: {masked}. "
                "You can find your API key in your account settings."
            )
            return self._error(401, message, "invalid_api_key")
        if behaviour == "ok" or behaviour == "short":
            return self._embeddings(body, short=behaviour == "short")
        status, _, wait = behaviour.partition(":")
        headers = {}
        if status == "429ms":
            status, headers = "429", {"retry-after-ms": wait}
        elif wait:
            headers = {"Retry-After": wait}
        self._error(int(status), _MESSAGES.get(int(status), "Something went wrong."), None, headers)

    def _embeddings(self, body: dict[str, Any], *, short: bool) -> None:
        texts = _inputs(body)
        problem = _invalid(body, texts)
        if problem:
            return self._error(*problem)
        dimension = self.fake.dimension or body.get("dimensions") or NATIVE_DIMENSION
        encode = _base64 if body.get("encoding_format") == "base64" else list
        vectors = [encode(vector_for(text, dimension)) for text in texts]
        data = [
            {"object": "embedding", "index": index, "embedding": vector}
            for index, vector in enumerate(vectors)
        ]
        tokens = sum(len(text.split()) for text in texts)
        self._send(
            200,
            {
                "object": "list",
                "data": data[:-1] if short else data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _error(
        self, status: int, message: str, code: str | None, headers: dict[str, str] | None = None
    ) -> None:
        kind = "invalid_request_error" if status < 500 else "server_error"
        error = {"message": message, "type": kind, "param": None, "code": code}
        self._send(status, {"error": error}, headers)

    def _send(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        content = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(content)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(content)


_MESSAGES = {
    400: "Invalid request.",
    404: "The model does not exist or you do not have access to it.",
    429: "Rate limit reached for requests. Please try again later.",
    500: "The server had an error while processing your request.",
    503: "The engine is currently overloaded, please try again later.",
}


def _invalid(body: dict[str, Any], texts: list[Any]) -> tuple[int, str, str | None] | None:
    """Why OpenAI would refuse this request body, as (status, message, code); None if fine.
    The code is None where OpenAI sends `"code": null`."""
    if body.get("model") not in MODELS:
        message = f"The model `{body.get('model')}` does not exist or you do not have access to it."
        return 404, message, "model_not_found"
    if not texts or not all(isinstance(text, str) and text for text in texts):
        return 400, "'input' must be a non-empty string or array of non-empty strings.", None
    if body.get("encoding_format", "float") not in {"float", "base64"}:
        return 400, "'encoding_format' must be 'float' or 'base64'.", None
    return None


def _base64(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
