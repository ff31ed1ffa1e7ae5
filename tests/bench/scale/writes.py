"""`python -m tests.bench.scale.writes --json OUT`: the write paths of the scale benchmark
on the database the environment names, so that the same process can run against the
scale database and against an empty one (tests/bench/scale/__main__.py runs both).

- the upload acknowledgement: `POST /api/documents/` of a one-page PDF, through Django's
  test client, by an account of its own;
- the claim of each of those jobs (`jobs.services.claim_job`), as a worker's first step;
- the insert of chunks with vectors into `search_chunk` and its HNSW index, per chunk, a
  document's 40 at a time, as the pipeline writes them (`search.pipeline.store`);
- the pipeline's pages per second on corpus files: claim, extract, embed, store, finish.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tests.bench.report import percentile

if TYPE_CHECKING:
    from django.contrib.auth.models import User
from tests.bench.scale.paths import timed

RUNS = 60


def measure(files: list[Path]) -> dict[str, float]:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from jobs import services
    from jobs.worker import processing
    from tests.factories import make_pdf

    owner = get_user_model().objects.create_user(f"writes-{os.getpid()}-{time.time_ns()}")
    client = APIClient(HTTP_HOST="localhost")
    client.force_authenticate(owner)
    # A file of its own each time: the same bytes again would be answered as a duplicate.
    pdfs = [make_pdf(pages=1, words_per_page=60, seed=n) for n in range(RUNS + 3)]
    jobs: list[str] = []

    def upload() -> None:
        answer = client.post("/api/documents/", {"file": pdf_file(pdfs[len(jobs)], len(jobs))})
        assert answer.status_code == 202, answer.content
        jobs.append(answer.json()["results"][0]["job_id"])

    upload_ms = timed(upload, RUNS)
    pending = iter(jobs)

    def claim() -> None:
        job_id = uuid.UUID(next(pending))
        assert services.claim_job(job_id=job_id, worker="scale-bench") is not None

    claim_ms = timed(claim, RUNS)
    insert_ms = _inserts(owner)
    began, pages = time.perf_counter(), 0
    for path in files:
        answer = client.post("/api/documents/", {"file": pdf_file(path.read_bytes(), path.stem)})
        job_id = uuid.UUID(answer.json()["results"][0]["job_id"])
        job = services.claim_job(job_id=job_id, worker="scale-bench")
        assert job is not None
        processing.run(job)
        job.refresh_from_db()
        assert job.status == "succeeded", job.error_code
        pages += job.pages_total
    seconds = time.perf_counter() - began
    return {
        "upload_p50": percentile(upload_ms, 50),
        "upload_p95": percentile(upload_ms, 95),
        "claim_p50": percentile(claim_ms, 50),
        "claim_p95": percentile(claim_ms, 95),
        "insert_per_chunk_p50": percentile(insert_ms, 50),
        "insert_per_chunk_p95": percentile(insert_ms, 95),
        "pages": pages,
        "pages_per_second": pages / seconds,
    }


def pdf_file(data: bytes, name: object) -> object:
    """An upload of `data` as a PDF, for the test client."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(f"scale-{name}.pdf", data, content_type="application/pdf")


def _inserts(owner: User) -> list[float]:
    """Milliseconds per chunk, 40 chunks (one document) a batch, on documents of `owner`."""
    from documents.models import Document
    from search.pipeline.split import Piece
    from search.pipeline.store import upsert_chunks

    rng = np.random.default_rng(11)
    documents = list(Document.objects.filter(owner=owner)[:RUNS])
    batches = iter(documents * 2)

    def insert() -> None:
        document = next(batches)
        vectors = rng.standard_normal((40, 384), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        pieces = [Piece(index=i, page=1, text=f"chunk {i}", source="text") for i in range(40)]
        upsert_chunks(
            document_id=document.id, version=document.version + 1, pieces=pieces,
            vectors=[v.tolist() for v in vectors],
        )  # fmt: skip

    return [ms / 40 for ms in timed(insert, len(documents) - 3)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, required=True)
    parser.add_argument("--files", type=Path, nargs="*", default=[])
    args = parser.parse_args()
    args.json.write_text(json.dumps(measure(args.files)))


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    main()
