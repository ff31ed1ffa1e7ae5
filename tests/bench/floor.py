"""The floor: the least an upload endpoint can do, as a raw WSGI app without Django.

For a POST it reads the multipart body, stores the bytes of its first part under
$INGEST_DATA_DIR/floor/<uuid>.pdf, inserts one row into `floor_job` (a table it creates)
and LPUSHes the id to Redis, then answers 202 with a small JSON body. No authentication,
no validation beyond the multipart framing, no framework. Any GET answers 200 (readiness).

Serve it with the real app's gunicorn settings:
    gunicorn tests.bench.floor:application -c config/gunicorn.py
It reads DATABASE_URL, REDIS_URL and INGEST_DATA_DIR from the environment.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

import psycopg
import redis

QUEUE = "floor:jobs"
MAX_BODY = 50 * 1024 * 1024 + 64 * 1024  # the API's 50 MiB limit plus multipart framing
TABLE_SQL = """
CREATE TABLE IF NOT EXISTS floor_job (
    id uuid PRIMARY KEY,
    key text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
)
"""

StartResponse = Callable[..., object]

_local = threading.local()
_lock = threading.Lock()
_redis: redis.Redis | None = None


def store_dir() -> Path:
    return Path(os.environ["INGEST_DATA_DIR"]) / "floor"


def create_table(database_url: str) -> None:
    """Create floor_job once; an advisory lock keeps concurrent workers from racing."""
    with psycopg.connect(database_url, autocommit=True) as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(424242)")
        conn.execute(TABLE_SQL)


def _connection() -> psycopg.Connection:
    """One autocommit connection per thread, opened on first use."""
    conn = getattr(_local, "conn", None)
    if conn is None or conn.closed:
        conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
        _local.conn = conn
    return conn


def _redis_client() -> redis.Redis:
    global _redis
    with _lock:
        if _redis is None:
            _redis = redis.Redis.from_url(os.environ["REDIS_URL"])
        return _redis


def file_part(body: bytes, content_type: str) -> memoryview:
    """The content of the first part of a multipart/form-data body."""
    _, _, boundary = content_type.partition("boundary=")
    delimiter = b"--" + boundary.split(";")[0].strip().strip('"').encode("latin-1")
    start = body.index(delimiter)
    content_start = body.index(b"\r\n\r\n", start) + 4
    content_end = body.index(b"\r\n" + delimiter, content_start)
    return memoryview(body)[content_start:content_end]


def _answer(start_response: StartResponse, status: str, payload: dict[str, str]) -> Iterable[bytes]:
    data = json.dumps(payload).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    start_response(status, headers)
    return [data]


def accept(body: bytes, content_type: str) -> str:
    """Store, insert, push: the whole floor. Returns the new id."""
    content = file_part(body, content_type)
    job_id = uuid.uuid4()
    key = f"floor/{job_id}.pdf"
    with open(store_dir() / f"{job_id}.pdf", "wb") as handle:
        handle.write(content)
    _connection().execute("INSERT INTO floor_job (id, key) VALUES (%s, %s)", (job_id, key))
    _redis_client().lpush(QUEUE, str(job_id))
    return str(job_id)


def application(environ: dict[str, object], start_response: StartResponse) -> Iterable[bytes]:
    if environ.get("REQUEST_METHOD") != "POST":
        return _answer(start_response, "200 OK", {"app": "floor"})
    length = int(str(environ.get("CONTENT_LENGTH") or 0))
    if not 0 < length <= MAX_BODY:
        return _answer(start_response, "413 Request Entity Too Large", {"code": "too_large"})
    body = environ["wsgi.input"].read(length)  # type: ignore[attr-defined]
    try:
        job_id = accept(body, str(environ.get("CONTENT_TYPE", "")))
    except ValueError:
        return _answer(start_response, "400 Bad Request", {"code": "not_multipart"})
    return _answer(start_response, "202 Accepted", {"job_id": job_id, "status": "queued"})


if os.environ.get("DATABASE_URL") and os.environ.get("INGEST_DATA_DIR"):
    store_dir().mkdir(parents=True, exist_ok=True)
    create_table(os.environ["DATABASE_URL"])
