"""`python -m tests.bench.pipeline`: pages per second of one worker process, by step.

On a stated set of PDFs (the corpus files the manifest expects to succeed), one after the
other in one thread: extraction alone (in warm sandboxes, as workers run it), then
the whole pipeline as a worker runs a claimed job (extract, clean, split, hashing embedder,
upsert into pgvector, the finishing transaction). Then `--small N` one-page PDFs through
extract_document with a fresh child per document (INGEST_EXTRACT_POOL_SIZE=0) and with warm
sandboxes, against reading them in this process: what the sandbox costs per document.
Private Postgres and Redis, as `make bench`.
"""

import argparse
import tempfile
import time
from pathlib import Path
from typing import TypedDict

from tests.bench.report import RESULTS, write_section
from tests.bench.services import django_on_private_services
from tests.factories import CORPUS, corpus_rows


class Limits(TypedDict):
    """extract_document's limits, as a worker passes them."""

    max_pages: int
    timeout: float
    memory_mb: int


def succeeding_files(limit: int | None) -> list[Path]:
    rows = [row for row in corpus_rows() if row["expect"] == "succeeded"]
    return [CORPUS / row["file"] for row in rows][:limit]


def measure(files: list[Path], small: int) -> dict[str, float]:
    """Run inside a process whose settings point at the private services."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.files.uploadedfile import SimpleUploadedFile

    from documents.services.uploads import create_upload
    from jobs import services
    from jobs.worker import processing
    from search.pipeline.extract import extract_document

    limits = Limits(
        max_pages=settings.INGEST_MAX_PAGES,
        timeout=300,
        memory_mb=settings.INGEST_EXTRACT_MEMORY_MB,
    )
    started, pages = time.perf_counter(), 0
    for path in files:
        pages += len(extract_document(path, **limits))
    extract_seconds = time.perf_counter() - started

    owner = User.objects.create_user("pipeline-bench")
    jobs = []
    for path in files:
        upload = SimpleUploadedFile(path.name, path.read_bytes(), "application/pdf")
        jobs.append(create_upload(owner=owner, upload=upload).job)
    started = time.perf_counter()
    for job in jobs:
        claimed = services.claim_job(job_id=job.id, worker="bench")
        assert claimed is not None, f"job {job.id} could not be claimed"
        processing.run(claimed)
    pipeline_seconds = time.perf_counter() - started
    return {
        "files": len(files),
        "pages": pages,
        "extract_seconds": extract_seconds,
        "pipeline_seconds": pipeline_seconds,
        **measure_small(small, limits),
    }


def measure_small(count: int, limits: Limits) -> dict[str, float]:
    """Seconds for `count` one-page PDFs: a fresh child each, warm sandboxes, no sandbox."""
    from django.test.utils import override_settings

    from search.pipeline.extract import extract_document
    from search.pipeline.reader import read_pdf
    from tests.factories import make_pdf

    if not count:
        return {}
    with tempfile.TemporaryDirectory() as directory:
        paths = [Path(directory) / f"{n}.pdf" for n in range(count)]
        for n, path in enumerate(paths):
            path.write_bytes(make_pdf(pages=1, words_per_page=200, seed=n))
        seconds: dict[str, float] = {"small": count}
        for name, pool_size in (("small_fresh", 0), ("small_warm", 4)):
            with override_settings(INGEST_EXTRACT_POOL_SIZE=pool_size):
                extract_document(paths[0], **limits)  # the warm pool's first start-up
                started = time.perf_counter()
                for path in paths:
                    extract_document(path, **limits)
                seconds[name] = time.perf_counter() - started
        started = time.perf_counter()
        for path in paths:
            with open(path, "rb") as fp:
                read_pdf(fp, max_pages=limits["max_pages"])
        seconds["small_in_process"] = time.perf_counter() - started
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N files")
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    parser.add_argument(
        "--small", type=int, default=100, metavar="N", help="one-page PDFs to time (0: none)"
    )
    args = parser.parse_args()
    files = succeeding_files(args.limit)
    with django_on_private_services("ingest-pipeline-bench-"):
        result = measure(files, args.small)
    text = report(result)
    print(text)
    if not args.no_write:
        write_section(RESULTS, "bench-pipeline", text, by="python -m tests.bench.pipeline")


def report(r: dict[str, float]) -> str:
    extract = r["pages"] / r["extract_seconds"]
    pipeline = r["pages"] / r["pipeline_seconds"]
    return (
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        "`python -m tests.bench.pipeline`: "
        f"{r['files']} corpus files the manifest expects to succeed, {r['pages']} pages, "
        "one thread of one process, hashing embedder.\n\n"
        "| step | seconds | pages per second per worker process |\n|---|---|---|\n"
        f"| extraction (warm sandboxes) | {r['extract_seconds']:.1f} | {extract:.1f} |\n"
        f"| whole pipeline (extract → store, job bookkeeping) | {r['pipeline_seconds']:.1f} | {pipeline:.1f} |\n"  # noqa: E501
    ) + report_small(r)


def report_small(r: dict[str, float]) -> str:
    if "small" not in r:
        return ""
    n = int(r["small"])
    rows = [
        ("a fresh child per document (`INGEST_EXTRACT_POOL_SIZE=0`, as before)", "small_fresh"),
        ("warm sandboxes (the default pool)", "small_warm"),
        ("no sandbox: `read_pdf` in the worker itself (the floor)", "small_in_process"),
    ]
    floor = r["small_in_process"] / n * 1000
    lines = [
        f"\n{n} one-page PDFs through `extract_document`, one thread of one process:\n",
        "| extraction | documents per second | ms per document | sandbox overhead, ms |",
        "|---|---|---|---|",
    ]
    for label, key in rows:
        ms = r[key] / n * 1000
        lines.append(f"| {label} | {n / r[key]:.1f} | {ms:.1f} | {ms - floor:.1f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
