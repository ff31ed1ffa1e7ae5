"""`python -m tests.bench.scale.build [--scale 1.0] [--chunks 1000000]` (`make scale-data`):
the scale benchmark's database, built once and kept in var/scale/ (git-ignored).

Years of use, at `--scale 1`:
- 10,000 accounts; one holds 200,000 documents, the others share 1.8 million;
- 2 million documents, a fifth with a second version and one in twenty with a third;
- 6 million jobs, three a document: one per version, the rest reprocessing of the newest,
  nearly all succeeded; 1 % of them dead letters (failed, their document's current job),
  a backlog of queued and a few processing;
- 20 million attempt-history rows (three or four a job);
- `--chunks` chunks with vectors of the default 384 dimensions, on the large account's
  documents first: what this machine's 24 GiB holds with its HNSW index built in memory.

Every table is written with COPY from this process (psycopg's copy, rows made as it
streams), indexes and all, then VACUUM ANALYZE. A build whose parameters match the kept
one's (var/scale/built.json) is not done again; `--rebuild` starts over.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import psutil
import psycopg

from tests.bench.services import BASE_DIR, manage, start_services

ROOT = BASE_DIR / "var" / "scale"
ACCOUNTS, LARGE, DOCUMENTS, JOBS_PER_DOCUMENT = 10_000, 200_000, 2_000_000, 3
DIMENSIONS = 384
START = datetime(2024, 12, 1, tzinfo=UTC)
SPAN = timedelta(days=730)
QUEUED, PROCESSING = 2_000, 40  # the backlog at the time of the snapshot


def _id(kind: int, number: int) -> uuid.UUID:
    """A stable id per kind (1 document, 2 job) and number."""
    return uuid.UUID(int=(kind << 120) | number)


class Plan:
    """What to make, from `--scale`."""

    def __init__(self, scale: float, chunks: int) -> None:
        self.accounts = max(2, round(ACCOUNTS * scale))
        self.documents = max(self.accounts, round(DOCUMENTS * scale))
        self.large = max(1, round(LARGE * scale))
        self.chunks = chunks
        self.scale = scale

    def owner_of(self, document: int) -> int:
        """The account (1-based) of document `document` (0-based): the first `large`
        documents are account 1's."""
        if document < self.large:
            return 1
        return 2 + (document - self.large) % (self.accounts - 1)

    def to_json(self) -> dict:
        return {"accounts": self.accounts, "documents": self.documents, "large": self.large,
                "chunks": self.chunks, "scale": self.scale}  # fmt: skip


def versions_of(document: int) -> int:
    return 3 if document % 20 == 0 else 2 if document % 5 == 0 else 1


COUNTS = {
    "accounts": "SELECT count(*) FROM auth_user",
    "documents": "SELECT count(*) FROM documents_document",
    "largest account's documents": "SELECT max(n) FROM (SELECT count(*) AS n "
    "FROM documents_document GROUP BY owner_id) AS per_owner",
    "jobs": "SELECT count(*) FROM jobs_job",
    "dead letters": "SELECT count(*) FROM jobs_job JOIN documents_document d ON "
    "d.current_job_id = jobs_job.id WHERE jobs_job.status = 'failed'",
    "attempts": "SELECT count(*) FROM jobs_jobattempt",
    "chunks": "SELECT count(*) FROM search_chunk",
    "database bytes": "SELECT pg_database_size(current_database())",
}


def counted(url: str) -> dict[str, int]:
    """What the database holds, by COUNTS."""
    with psycopg.connect(url) as conn:
        return {name: _one(conn, sql) for name, sql in COUNTS.items()}


def _one(conn: psycopg.Connection, sql: str) -> int:
    row = conn.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


def build(plan: Plan, url: str) -> dict[str, float]:
    """Fill the migrated database at `url`; seconds per table."""
    took: dict[str, float] = {}
    with psycopg.connect(url, autocommit=False) as conn:
        first_user = _users(conn, plan, took)
        _copy(conn, took, "documents_document", DOCUMENT_COLUMNS, _documents(plan, first_user))
        _copy(conn, took, "jobs_job", JOB_COLUMNS, _jobs(plan, first_user))
        conn.commit()  # the current-job foreign keys are checked here
        _copy(conn, took, "jobs_jobattempt", ATTEMPT_COLUMNS, _attempts(plan))
        conn.commit()
        _chunks(conn, plan, took)
        conn.commit()
    with psycopg.connect(url, autocommit=True) as conn:
        began = time.monotonic()
        conn.execute("VACUUM ANALYZE")
        took["vacuum analyze"] = time.monotonic() - began
    return took


def _copy(conn: psycopg.Connection, took: dict, table: str, columns: str, rows: Iterator) -> None:
    began = time.monotonic()
    with conn.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    took[table] = time.monotonic() - began
    print(f"  {table}: {took[table]:.0f} s", flush=True)


def _users(conn: psycopg.Connection, plan: Plan, took: dict) -> int:
    rows = (
        (f"user{n}", "!", False, "", "", "", False, True, START)
        for n in range(1, plan.accounts + 1)
    )
    columns = "username, password, is_superuser, first_name, last_name, email, is_staff, " \
        "is_active, date_joined"  # fmt: skip
    _copy(conn, took, "auth_user", columns, rows)
    return _one(conn, "SELECT min(id) FROM auth_user WHERE username = 'user1'")


DOCUMENT_COLUMNS = (
    "id, owner_id, filename, size, stored_bytes, sha256, storage_key, version, current_job_id, "
    "page_count, ready_version, ready_embed_model, created_at, updated_at"
)
# What the default embedding (hashing, 384 dimensions) calls itself: search compares a
# query only with the vectors its own embedding made (the benchmark relabels them when
# another is configured).
DEFAULT_SIGNATURE = "hashing::384"


def _when(document: int, plan: Plan) -> datetime:
    return START + SPAN * (document / plan.documents)


def _key(owner: int, document: uuid.UUID, version: int) -> str:
    return f"documents/{owner}/{document}/v{version}.pdf"


def _documents(plan: Plan, first_user: int) -> Iterator[tuple]:
    for n in range(plan.documents):
        owner = first_user + plan.owner_of(n) - 1
        versions = versions_of(n)
        document = _id(1, n)
        created = _when(n, plan)
        ready = None if _current_status(n, plan) in ("queued", "processing") else versions
        yield (
            document, owner, f"report-{n}.pdf", 250_000, 250_000 * versions,
            f"{n:064x}", _key(owner, document, versions), versions,
            _id(2, n * JOBS_PER_DOCUMENT + JOBS_PER_DOCUMENT - 1), 12, ready,
            DEFAULT_SIGNATURE if ready else "", created, created,
        )  # fmt: skip


def _current_status(document: int, plan: Plan) -> str:
    """The newest documents are the backlog; one in 33 ends a dead letter (1 % of jobs)."""
    from_newest = plan.documents - 1 - document
    if from_newest < round(PROCESSING * max(plan.scale, 0.05)):
        return "processing"
    if from_newest < round(QUEUED * max(plan.scale, 0.05)):
        return "queued"
    return "failed" if document % 33 == 7 else "succeeded"


JOB_COLUMNS = (
    "id, document_id, owner_id, version, storage_key, lane, status, attempts, progress_done, "
    "progress_total, pages_done, pages_total, error_code, error_detail, worker, created_at, "
    "queued_at, enqueued_at, started_at, heartbeat_at, finished_at"
)


def _jobs(plan: Plan, first_user: int) -> Iterator[tuple]:
    for n in range(plan.documents):
        owner = first_user + plan.owner_of(n) - 1
        versions = versions_of(n)
        document = _id(1, n)
        created = _when(n, plan)
        for k in range(JOBS_PER_DOCUMENT):
            version = min(k + 1, versions)
            current = k == JOBS_PER_DOCUMENT - 1
            status = _current_status(n, plan) if current else "succeeded"
            at = created + timedelta(hours=k)
            ended = status in ("succeeded", "failed")
            yield (
                _id(2, n * JOBS_PER_DOCUMENT + k), document, owner, version,
                _key(owner, document, version), "fast", status, _tries(status, n),
                40 if ended else 0, 40, 12, 12,
                "corrupt" if status == "failed" else "",
                "The PDF is damaged." if status == "failed" else "",
                "worker:1" if status == "processing" else "", at, at, at,
                at if status != "queued" else None, at if status == "processing" else None,
                at + timedelta(seconds=20) if ended else None,
            )  # fmt: skip


def _tries(status: str, document: int) -> int:
    """Attempts so far: none for the backlog (a job with one would be a resumed job, which
    the sweeper sends again within seconds), one for those processing."""
    return {"queued": 0, "processing": 1}.get(status, 3 + (document % 3 == 0))


ATTEMPT_COLUMNS = (
    "job_id, number, worker, started_at, finished_at, outcome, error_code, error_message, traceback"
)


def _attempts(plan: Plan) -> Iterator[tuple]:
    for n in range(plan.documents):
        created = _when(n, plan)
        for k in range(JOBS_PER_DOCUMENT):
            job = _id(2, n * JOBS_PER_DOCUMENT + k)
            at = created + timedelta(hours=k)
            tries = 3 + (n % 3 == 0)
            for number in range(1, tries + 1):
                last = number == tries
                yield (
                    job, number, "worker:1", at, at + timedelta(seconds=5),
                    "succeeded" if last else "retry", "" if last else "rate_limited",
                    "" if last else "The embedding service asked us to slow down.", "",
                )  # fmt: skip


def _chunks(conn: psycopg.Connection, plan: Plan, took: dict) -> None:
    """`plan.chunks` chunks, 40 a ready document from the first on (the large account's),
    random unit vectors: loaded without the HNSW index, which is then built and timed."""
    from pgvector.psycopg import register_vector

    register_vector(conn)
    conn.execute("DROP INDEX IF EXISTS chunk_embedding_hnsw")
    rng = np.random.default_rng(7)
    began = time.monotonic()
    columns = "id, document_id, version, index, text, page, source, embedding"
    with (
        conn.cursor() as cursor,
        cursor.copy(f"COPY search_chunk ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy,
    ):
        copy.set_types(["uuid", "uuid", "int4", "int4", "text", "int4", "varchar", "vector"])
        made, document = 0, 0
        while made < plan.chunks:
            if _current_status(document, plan) == "succeeded":
                vectors = rng.standard_normal((40, DIMENSIONS), dtype=np.float32)
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
                for index in range(min(40, plan.chunks - made)):
                    copy.write_row((
                        uuid.UUID(int=(3 << 120) | made), _id(1, document),
                        versions_of(document), index,
                        f"Chunk {index} of report {document}: quarterly figures and notes.",
                        1 + index // 4, "text", vectors[index],
                    ))  # fmt: skip
                    made += 1
            document += 1
    conn.commit()  # the foreign keys are checked here, before the index can be built
    took["search_chunk"] = time.monotonic() - began
    print(f"  search_chunk: {took['search_chunk']:.0f} s", flush=True)
    began = time.monotonic()
    conn.execute("SET maintenance_work_mem = '4GB'")
    with ServerMemory(conn) as memory:
        conn.execute(
            "CREATE INDEX chunk_embedding_hnsw ON search_chunk USING hnsw "
            "(embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
        )
    took["hnsw index"] = time.monotonic() - began
    took["hnsw index peak MiB"] = memory.peak_mib
    print(f"  hnsw index: {took['hnsw index']:.0f} s, {memory.peak_mib:.0f} MiB", flush=True)


class ServerMemory:
    """The Postgres server's memory (PSS summed over its processes, so shared memory is
    counted once) at its peak over a block, above what it held before."""

    def __init__(self, conn: psycopg.Connection) -> None:
        backend = _one(conn, "SELECT pg_backend_pid()")
        server = psutil.Process(backend).parent()
        assert server is not None, "a backend has its postmaster"
        self.server = server
        self.peak_mib = 0.0
        self._done = threading.Event()

    def _pss_mib(self) -> float:
        total = 0
        for process in [self.server, *self.server.children()]:
            with contextlib.suppress(psutil.Error):
                total += process.memory_full_info().pss
        return total / 2**20

    def _sample(self) -> None:
        while not self._done.wait(0.5):
            self.peak_mib = max(self.peak_mib, self._pss_mib() - self._before)

    def __enter__(self) -> ServerMemory:
        self._before = self._pss_mib()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.scale.build")
    parser.add_argument("--scale", type=float, default=1.0, help="1: 2 million documents")
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--rebuild", action="store_true", help="start over")
    args = parser.parse_args(argv)
    plan = Plan(args.scale, args.chunks)
    built = args.root / "built.json"
    if built.exists() and not args.rebuild:
        kept = json.loads(built.read_text())
        if kept.get("plan") == plan.to_json():
            print(f"the scale database in {args.root} is built: {kept['plan']}")
            return 0
    if args.root.exists():
        shutil.rmtree(args.root)
    args.root.mkdir(parents=True)
    services = start_services(args.root)
    try:
        print(f"building {plan.to_json()} in {args.root}", flush=True)
        manage(services.env, "migrate", "--noinput", "--verbosity", "0")
        began = time.monotonic()
        took = build(plan, services.database_url)
        took["total"] = time.monotonic() - began
        holds = counted(services.database_url)
        record: dict[str, object] = {"plan": plan.to_json(), "seconds": took, "holds": holds}
        record["built"] = datetime.now(UTC).isoformat()
        built.write_text(json.dumps(record, indent=1))
        print(f"built in {took['total']:.0f} s: {holds}", flush=True)
    finally:
        services.stop()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    raise SystemExit(main())
