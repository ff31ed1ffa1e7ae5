"""The readers: while the uploads and the faults go on, a few users read what is ready as
an application built on the service does: a search, then the first hit's chunk with its
neighbours, its document's chunks, its whole content and its page as an image, by the
links the hit carries; and the same search as an assistant asks it, through /mcp.
Every answer is recorded; `answered` judges them.

Each reader is an account of its own, given a few of the corpus's short documents before
the burst (`stock`): search is scoped to its owner, and an account among the burst's
users owns one document, which at 500 users is still queued for most of the run.
"""

from __future__ import annotations

import http.client
import itertools
import json
import re
import threading
import time
from dataclasses import asdict, dataclass
from urllib.parse import urlsplit

from tests.bench.loadtest import client, payloads
from tests.bench.loadtest.criteria import Criterion
from tests.bench.mcp import ENVELOPE, MCP_HEADERS
from tests.bench.report import percentile

QUERIES = ("report", "table of results", "page", "data", "summary", "the method")
ENDPOINTS = ("search", "mcp_search", "chunk", "chunks", "content", "page_image")
TIMEOUT = 60.0
# Seconds between one reader's rounds: two searches a round, under the service's default
# search rate (60 a minute a user), so that a refusal means the service refused, not us.
PAUSE = 2.0
TRY_AGAIN = re.compile(rb"try again in (\d+) s")
# What a read may answer: found; a document not ready or replaced meanwhile; and, during a
# fault, a refusal with Retry-After.
FINE = {200, 404, 409, 410}
REFUSALS = {429, 503}


@dataclass
class Read:
    endpoint: str  # one of ENDPOINTS
    start: float  # wall clock
    seconds: float = 0.0
    status: int = 0  # 0: no answer
    retry_after: str | None = None
    error: str = ""

    @property
    def clean(self) -> bool:
        return self.status in FINE or (self.status in REFUSALS and self.retry_after is not None)

    def to_json(self) -> dict:
        return asdict(self)


# Documents each reader's account holds before the burst, and how long they may take to be
# read on the idle stack (seconds each; the margin is for two loaded cores).
STOCK = 3
STOCK_READY_WITHIN = 180.0


def stock(port: int, tokens: list[str], files: list[payloads.CorpusFile]) -> None:
    """Give each reader's account STOCK short documents of the corpus, and wait until they
    are read: what the readers find from the start. Raises when one is not accepted, or
    not read in time."""
    jobs: list[tuple[str, str]] = []
    for n, token in enumerate(tokens):
        for k in range(STOCK):
            item = payloads.pushed_upload(files, n * STOCK + k)
            answer = client.upload(port, token, item, "stock")
            if not answer.accepted:
                raise RuntimeError(f"a reader's document was refused: {answer.status} {answer}")
            assert answer.job_id is not None  # accepted
            jobs.append((token, answer.job_id))
    deadline = time.monotonic() + STOCK_READY_WITHIN
    for token, job_id in jobs:
        while (status := _job_status(port, token, job_id)) != "succeeded":
            if status == "failed" or time.monotonic() > deadline:
                raise RuntimeError(f"a reader's document was not read: job {job_id} {status}")
            time.sleep(0.5)


def _job_status(port: int, token: str, job_id: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        conn.request("GET", f"/api/jobs/{job_id}/", headers={"Authorization": f"Token {token}"})
        answer = conn.getresponse()
        body = answer.read()
        return str(json.loads(body).get("status")) if answer.status == 200 else ""
    except (OSError, http.client.HTTPException, ValueError):
        return ""
    finally:
        conn.close()


class Readers:
    def __init__(self, port: int, tokens: list[str], count: int) -> None:
        self.port = port
        self.tokens = tokens[:count]
        self.reads: list[Read] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(token, n), daemon=True)
            for n, token in enumerate(self.tokens)
        ]

    def start(self) -> Readers:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> list[Read]:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=TIMEOUT + 5)
        return list(self.reads)

    def _run(self, token: str, number: int) -> None:
        queries = itertools.cycle(QUERIES[number % len(QUERIES) :] + QUERIES)
        while not self._stop.is_set():
            self._round(token, next(queries))
            self._stop.wait(PAUSE)

    def _round(self, token: str, query: str) -> None:
        found = self._get(token, "search", f"/api/search/?q={query.replace(' ', '+')}&k=20")
        self._mcp_search(token, query)
        hits = found.get("results") if isinstance(found, dict) else None
        if not hits:
            return
        # A hit with boxes is a passage of a version read with its structure: its content
        # is there to read (a scan's may be refused as documented, `no_structure`).
        links = next((hit for hit in hits if hit.get("boxes")), hits[0])["links"]
        self._get(token, "chunk", _path(links["chunk"]) + "?neighbours=2")
        self._get(token, "chunks", _path(links["chunks"]) + "&page_size=100")
        self._get(token, "content", _path(links["content"]))
        self._get(token, "page_image", _path(links["page_image"]) + "?width=600")

    def _mcp_search(self, token: str, query: str) -> None:
        """The search as one `tools/call` POST of the 2026-07-28 protocol (no handshake)."""
        params = {"name": "search", "arguments": {"query": query, "k": 20}, "_meta": ENVELOPE}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
        headers["Content-Type"] = "application/json"
        self._get(token, "mcp_search", "/mcp", method="POST", body=body, headers=headers)

    def _get(
        self,
        token: str,
        endpoint: str,
        path: str,
        *,
        method: str = "GET",
        body: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> object:
        read = Read(endpoint, time.time())
        started = time.perf_counter()
        answer_body = b""
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
            sent = headers or {"Authorization": f"Token {token}"}
            conn.request(method, path, body=body, headers=sent)
            answer = conn.getresponse()
            answer_body = answer.read()  # the whole body: a streamed content is read to its end
            read.status, read.retry_after = answer.status, answer.getheader("Retry-After")
            conn.close()
        except (OSError, http.client.HTTPException) as exc:
            read.error = f"{type(exc).__name__}: {exc}"
        read.seconds = time.perf_counter() - started
        with self._lock:
            self.reads.append(read)
        if read.status == 200 and endpoint == "search":
            return json.loads(answer_body)
        if read.status == 200 and endpoint == "mcp_search" and b'"isError":true' in answer_body:
            _tool_error(read, answer_body)
        return None


def _tool_error(read: Read, body: bytes) -> None:
    """A tool's error, answered 200 as JSON-RPC answers any: a refusal that says when to
    try again (the search rate, a database restart) as the API's 429 and 503; anything
    else as a server error."""
    wait = TRY_AGAIN.search(body)
    if wait is None:
        read.status, read.error = 500, body[:300].decode(errors="replace")
    else:
        read.status = 503 if b"not answering" in body else 429
        read.retry_after = wait.group(1).decode()


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def answered(reads: list[Read]) -> Criterion:
    """Every read answered as documented, and each endpoint read at least once."""
    bad = [read for read in reads if not read.clean]
    figures = []
    for endpoint in ENDPOINTS:
        ms = [r.seconds * 1000 for r in reads if r.endpoint == endpoint and r.status == 200]
        figures.append(
            f"{endpoint} {len(ms)} ok, p50 {percentile(ms, 50):.0f} ms, "
            f"p95 {percentile(ms, 95):.0f} ms"
            if ms
            else f"{endpoint} never answered 200"
        )
    unread = [e for e in ENDPOINTS if not any(r.endpoint == e and r.status == 200 for r in reads)]
    return Criterion(
        "Reads while loaded: search (REST and MCP), a chunk, the chunks, the content, a page "
        "image answer as documented",
        f"{len(reads)} reads; " + "; ".join(figures) + f"; {len(bad)} not clean",
        "0 not clean, every endpoint read",
        not bad and not unread,
        "; ".join(f"{r.endpoint} {r.status or r.error}" for r in bad[:5]),
    )
