"""A real HTTP server that speaks the rerank APIs, for tests of search/retrieval/rerank.py: a
stand-in for a paid service (Cohere, Jina) or a Hugging Face TEI server.

    with FakeReranker(api_key="test-key", model="rerank-v3.5") as server:
        server.url_for("/v2/rerank")          # any path ending in /rerank answers
        server.script(["500", "malformed"])   # the next two requests, in turn
        server.delay = 3.0                    # every answer after this many seconds
        server.score = lambda query, text: 1.0 if "lease" in text else 0.0

The request decides the answer's shape, as with the real services: `documents` (Cohere,
Jina) is answered `{"id", "results": [{"index", "relevance_score"}], "meta"}`, best first,
cut to `top_n`; `texts` (TEI) a bare list `[{"index", "score"}]`, best first. Cohere's
shape needs `model`. A wrong or missing key is answered 401. Behaviours in a script:
"ok"; "<status>" (an error body, e.g. "500", "400"); "429:<seconds>" (with Retry-After);
"malformed" (a 200 that is not JSON); "wrong" (JSON of neither shape); "out_of_range" (an
index past the documents sent). Without a script every request is "ok". The score is, by
default, the share of the query's words that the text holds (word overlap).
"""

import contextlib
import json
import re
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.scripted import ScriptedServer

_WORD = re.compile(r"\w+")


def word_overlap(query: str, text: str) -> float:
    """The share of the query's distinct words that `text` holds, case aside."""
    asked = set(_WORD.findall(query.lower()))
    return len(asked & set(_WORD.findall(text.lower()))) / max(len(asked), 1)


class FakeReranker(ScriptedServer):
    """POST <anything>/rerank on 127.0.0.1, in a thread; keeps each request's body and headers."""

    def __init__(self, *, api_key: str | None = None, model: str | None = None) -> None:
        super().__init__(_Handler)
        self.api_key = api_key
        self.model = model  # when set, the only model it serves (others: 404)
        self.score: Callable[[str, str], float] = word_overlap
        # each request as {"path", "headers", "body"}

    def url_for(self, path: str) -> str:
        return self.url + path


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the clients expect

    @property
    def fake(self) -> FakeReranker:
        return self.server.fake  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet test output

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not self.path.rstrip("/").endswith("/rerank"):
            return self._send(404, {"message": f"Unknown path {self.path}"})
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self._send(400, {"message": "invalid JSON body"})
        request = {"path": self.path, "headers": dict(self.headers), "body": body}
        behaviour = self.fake._next_behaviour(request)
        if self.fake._stopping.wait(self.fake.delay):
            return
        # The client may have given up waiting (a timeout test).
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(behaviour, body)

    def _answer(self, behaviour: str, body: dict[str, Any]) -> None:
        if self.fake.api_key and self.headers.get("Authorization") != f"Bearer {self.fake.api_key}":
            return self._send(401, {"message": "invalid api token"})
        if behaviour == "malformed":
            return self._send_bytes(200, b"<html>502 Bad Gateway</html>", "text/html")
        if behaviour == "wrong":
            return self._send(200, {"ranking": "not one of the shapes"})
        if behaviour not in {"ok", "out_of_range"}:
            status, _, wait = behaviour.partition(":")
            headers = {"Retry-After": wait} if wait else {}
            return self._send(int(status), {"message": f"fake failure {status}"}, headers)
        problem = _invalid(body, self.fake.model)
        if problem:
            return self._send(*problem)
        self._ranked(body, out_of_range=behaviour == "out_of_range")

    def _ranked(self, body: dict[str, Any], *, out_of_range: bool) -> None:
        texts = body["documents"] if "documents" in body else body["texts"]
        scored = [
            (index, self.fake.score(body["query"], _text(text))) for index, text in enumerate(texts)
        ]
        scored.sort(key=lambda item: -item[1])
        if out_of_range:
            scored[0] = (len(texts), scored[0][1])
        if "texts" in body:  # TEI
            return self._send(200, [{"index": i, "score": s} for i, s in scored])
        top_n = body.get("top_n") or len(scored)
        results = [{"index": i, "relevance_score": s} for i, s in scored[:top_n]]
        meta = {"billed_units": {"search_units": 1}}
        self._send(200, {"id": str(uuid.uuid4()), "results": results, "meta": meta})

    def _send(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_bytes(
        self, status: int, content: bytes, kind: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(content)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(content)


def _text(document: Any) -> str:
    """Cohere and Jina also take documents as {"text": ...} objects."""
    return document.get("text", "") if isinstance(document, dict) else str(document)


def _invalid(body: dict[str, Any], model: str | None) -> tuple[int, dict[str, str]] | None:
    """Why a real service would refuse this body, as (status, error body); None if fine."""
    texts = body.get("documents", body.get("texts"))
    if not isinstance(body.get("query"), str) or not isinstance(texts, list) or not texts:
        return 422, {"message": "query and documents (or texts) are required"}
    if "documents" in body and not body.get("model"):
        return 400, {"message": "model is required"}
    if model is not None and body.get("model", model) != model:
        return 404, {"message": f"model '{body['model']}' not found"}
    return None
