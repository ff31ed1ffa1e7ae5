"""The service's Prometheus metrics, defined once, counted by the process that sees the event.

prometheus_client runs in its multiprocess mode (settings set PROMETHEUS_MULTIPROC_DIR
before this module is imported): each gunicorn, daphne and Dramatiq process writes its
counts to files in that directory and /metrics adds them up. What the database already
knows (jobs by state, queue age, workers) is not counted here: jobs.ops.collector reads it
when Prometheus scrapes.

These names and labels are a contract with dashboards and alert rules
(docs/running/operations.md): add new ones freely, never rename.
"""

import os
from pathlib import Path

from prometheus_client import Counter, Histogram

# prometheus_client opens this process's files in the directory as each metric is made,
# below: it must exist first (the settings only name it; loading them writes nothing).
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)

# Seconds, from a few milliseconds (an upload's answer) to an hour (a long queue wait).
_FAST = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_SLOW = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200)

UPLOADS = Counter(
    "ingest_uploads",
    "Files sent for upload, by outcome: accepted, duplicate, rejected (with its code), "
    "throttled, backlog_full.",
    ["outcome", "code"],
)
UPLOAD_ACK = Histogram(
    "ingest_upload_ack_seconds",
    "Time from an upload request's start to its 202 answer.",
    buckets=_FAST,
)
QUEUE_WAIT = Histogram(
    "ingest_job_queue_wait_seconds",
    "Time a job waited in the queue before an attempt claimed it.",
    ["lane"],
    buckets=_SLOW,
)
PROCESSING = Histogram(
    "ingest_job_processing_seconds",
    "Time one attempt at a job ran, from its claim to its end (any outcome).",
    ["lane"],
    buckets=_SLOW,
)
TIME_TO_READY = Histogram(
    "ingest_document_time_to_ready_seconds",
    "Time from a version's upload to its chunks being searchable.",
    buckets=_SLOW,
)
ATTEMPTS = Counter(
    "ingest_job_attempts",
    "Ended attempts at jobs: succeeded, retried, failed, lost (the worker died).",
    ["outcome"],
)
FAILURES = Counter(
    "ingest_job_failures",
    "Jobs that ended failed, by error code.",
    ["code"],
)
PAGES = Counter("ingest_pages_extracted", "Pages of text read from documents.")
# Pages read by OCR in the `ocr` lane; its rate is the lane's pages per second.
OCR_PAGES = Counter("ingest_ocr_pages", "Pages of scanned documents read by OCR.")
CHUNKS = Counter("ingest_chunks_stored", "Chunks stored with their embeddings.")
# A worker back after its lease was taken over (a network cut, a long pause) writes nothing:
# each write names the attempt's lease, and the database refuses one that is not the job's.
FENCED_WRITES = Counter(
    "ingest_fenced_writes",
    "Writes refused because their attempt no longer holds the job (taken over after its "
    "lease expired, cancelled, or deleted), by write: heartbeat, pages, progress, chunks "
    "(a batch not stored), ending.",
    ["write"],
)
# Direct uploads (documents.direct): started, completed (a document made, or a duplicate
# found), refused (the object was not what was declared), expired (never completed).
DIRECT_UPLOADS = Counter(
    "ingest_direct_uploads",
    "Direct uploads, by outcome: started, completed, refused, expired.",
    ["outcome"],
)
PRUNED = Counter(
    "ingest_pruned",
    "Rows and files the sweeper removed past INGEST_RETAIN_DAYS, by kind: attempts, jobs, "
    "chunks, files, events.",
    ["kind"],
)
EMBEDDING_REQUESTS = Counter(
    "ingest_embedding_requests",
    "Calls to the embedding provider: ok, rate_limited (HTTP 429), error.",
    ["outcome"],
)
EMBEDDING_WAIT = Counter(
    "ingest_embedding_wait_seconds",
    "Time spent waiting on the shared embedding rate limiter.",
)

# Searches (search/stats.py): how long each took, its query's embedding included, by mode,
# and how each was answered.
SEARCH_SECONDS = Histogram(
    "ingest_search_seconds",
    "Time a search took, its query's embedding included, by mode: hybrid, vector, text.",
    ["mode"],
    buckets=_FAST,
)
SEARCHES = Counter(
    "ingest_searches",
    "Searches answered, by mode and outcome: results, no_results, or degraded (the query "
    "could not be embedded, so the answer came from the words alone).",
    ["mode", "outcome"],
)
# Re-ranking (search/retrieval/rerank.py): each call to the rerank service and how it ended.
SEARCH_RERANKS = Counter(
    "ingest_search_reranks",
    "Calls to the rerank service (INGEST_RERANK_URL), by outcome: reranked, or why its order "
    "was not used: timeout, unreachable, rate_limited, refused (another 4xx), failed (5xx), "
    "malformed (an answer it could not read).",
    ["outcome"],
)

# Page images (documents/pages.py): served from the cache or drawn, and how long a drawing
# took, the stored file's fetch included.
PAGE_IMAGES = Counter(
    "ingest_page_images",
    "Page images served or refused, by outcome: cached, drawn, busy (no turn to draw), "
    "failed (with the error's code).",
    ["outcome", "code"],
)
PAGE_DRAW_SECONDS = Histogram(
    "ingest_page_draw_seconds",
    "Time drawing a page image took, its stored file's fetch included.",
    buckets=_FAST,
)


def count_upload(outcome: str, code: str = "", files: int = 1) -> None:
    UPLOADS.labels(outcome=outcome, code=code).inc(files)
