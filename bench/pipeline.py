"""`python -m bench.pipeline`: pages per second of one worker process, by step.

On a stated set of PDFs (the corpus files the manifest expects to succeed), one after the
other in one thread: extraction alone (the sandboxed child process, as workers run it), then
the whole pipeline as a worker runs a claimed job (extract, clean, split, hashing embedder,
upsert into pgvector, the finishing transaction). Private Postgres and Redis, as `make bench`.
"""

import argparse
import time
from pathlib import Path

from bench.report import write_section
from bench.services import BASE_DIR, django_on_private_services
from tests.factories import CORPUS, corpus_rows


def succeeding_files(limit: int | None) -> list[Path]:
    rows = [row for row in corpus_rows() if row["expect"] == "succeeded"]
    return [CORPUS / row["file"] for row in rows][:limit]


def measure(files: list[Path]) -> dict[str, float]:
    """Run inside a process whose settings point at the private services."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.files.base import ContentFile

    from documents.services import create_upload
    from jobs import processing, services
    from search.pipeline.extract import extract_document

    limits = {
        "max_pages": settings.INGEST_MAX_PAGES,
        "timeout": 300,
        "memory_mb": settings.INGEST_EXTRACT_MEMORY_MB,
    }
    started, pages = time.perf_counter(), 0
    for path in files:
        pages += len(extract_document(path, **limits))
    extract_seconds = time.perf_counter() - started

    owner = User.objects.create_user("pipeline-bench")
    jobs = []
    for path in files:
        upload = ContentFile(path.read_bytes(), name=path.name)
        jobs.append(create_upload(owner=owner, upload=upload).job)
    started = time.perf_counter()
    for job in jobs:
        processing.run(services.claim_job(job_id=job.id, worker="bench"))
    pipeline_seconds = time.perf_counter() - started
    return {
        "files": len(files),
        "pages": pages,
        "extract_seconds": extract_seconds,
        "pipeline_seconds": pipeline_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N files")
    parser.add_argument("--no-write", action="store_true", help="leave BENCHMARKS.md alone")
    args = parser.parse_args()
    files = succeeding_files(args.limit)
    with django_on_private_services("ingest-pipeline-bench-"):
        result = measure(files)
    text = report(result)
    print(text)
    if not args.no_write:
        write_section(BASE_DIR / "BENCHMARKS.md", "bench-pipeline", text)


def report(r: dict[str, float]) -> str:
    extract = r["pages"] / r["extract_seconds"]
    pipeline = r["pages"] / r["pipeline_seconds"]
    return (
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        "`python -m bench.pipeline`: "
        f"{r['files']} corpus files the manifest expects to succeed, {r['pages']} pages, "
        "one thread of one process, hashing embedder.\n\n"
        "| step | seconds | pages per second per worker process |\n|---|---|---|\n"
        f"| extraction (sandboxed child per file) | {r['extract_seconds']:.1f} | {extract:.1f} |\n"
        f"| whole pipeline (extract → store, job bookkeeping) | {r['pipeline_seconds']:.1f} | {pipeline:.1f} |\n"  # noqa: E501
    )


if __name__ == "__main__":
    main()
