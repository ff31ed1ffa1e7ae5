"""`python -m tests.bench.output` (in `make bench`): what giving a document's output back
costs, on private Postgres and Redis.

A document of `--pages` pages (1,000) is stored as the pipeline stores one: the structure
of two corpus documents (a report with headings, lists and running furniture, and a page
of tables), read by our reader and repeated page after page, and its chunks as the
structured chunker cuts them, with hashing vectors. Then:

1. **Content, streamed.** Its whole content as Markdown and as JSON, read through the
   WSGI application in a fresh process each, after a warm-up read of a 10-page document
   of the same kind: the highest RSS over the process's own after the warm-up, for the
   1,000-page document and for a 100-page one (read every 50 pieces of the answer), and a
   control that keeps every piece, as an answer built whole would. Flat memory: the two
   streamed reads alike, well under the control.
2. **Chunks.** A page of 100 chunks of the large document, following `next` through
   it, p50 and p95 over `--runs` pages; a chunk with 5 neighbours each side; target p95
   50 ms (the scale benchmark holds the same reads to it on two million documents).

Writes the `bench-output` block of docs/working/benchmark-results.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import psutil

from tests.bench.report import RESULTS, code_version, describe_machine, percentile, write_section
from tests.bench.services import BASE_DIR, django_on_private_services

if TYPE_CHECKING:
    from collections.abc import Iterator

    from django.contrib.auth.models import User
    from django.http import StreamingHttpResponse

CHUNK_TARGET_MS = 50.0
FORMATS = ("markdown", "json")
SAMPLE_EVERY = 50  # pieces of an answer between two readings of the process's RSS


def _repeated(pages: int) -> dict:
    """The structure (as_dict) of a `pages`-page document: the corpus pages again and
    again, every page number shifted to its place."""
    from search.pipeline.layout.document import read_structure
    from tests.bench.structure import corpus

    samples = [
        read_structure(doc.pdf, max_pages=50).as_dict()
        for doc in (corpus.report(), corpus.tables())
    ]
    out: dict = {"pages": [], "blocks": []}
    while len(out["pages"]) < pages:
        for sample in samples:
            shift = len(out["pages"])
            out["pages"].extend(sample["pages"])
            out["blocks"].extend(_shifted(block, shift) for block in sample["blocks"])
    last = pages
    out["pages"] = out["pages"][:last]
    out["blocks"] = [block for block in out["blocks"] if block["page"] <= last]
    return out


def _shifted(block: dict, shift: int) -> dict:
    moved = {**block, "page": block["page"] + shift}
    if "lines" in block:
        moved["lines"] = [[page + shift, box, start] for page, box, start in block["lines"]]
    if "parts" in block:
        moved["parts"] = [[page + shift, box] for page, box in block["parts"]]
    if "cells" in block:
        moved["cells"] = [
            {**cell, "page": cell["page"] + shift} if "page" in cell else cell
            for cell in block["cells"]
        ]
    return moved


def stored_document(owner: User, pages: int) -> str:
    """A ready document of `pages` pages with its structure and chunks; its id."""
    from django.conf import settings

    from documents.models import Document
    from jobs.models import Job, JobStatus
    from search.embedding import hashing_embed
    from search.embedding.signature import current_signature
    from search.pipeline import store
    from search.pipeline.layout.model import Structure
    from search.pipeline.structured import split_structure

    structure = Structure.from_dict(_repeated(pages))
    document = Document.objects.create(
        owner=owner,
        filename=f"{pages}-pages.pdf",
        size=pages * 40_000,
        sha256=os.urandom(32).hex(),
        storage_key="bench",
        page_count=pages,
        ready_version=1,
        ready_embed_model=current_signature(),
    )
    job = Job.objects.create(
        document=document, owner=owner, version=1, storage_key="bench", status=JobStatus.SUCCEEDED
    )
    Job.objects.filter(id=job.id).update(finished_at=job.created_at)
    store.upsert_structure(document_id=document.id, version=1, structure=structure)
    pieces = split_structure(
        structure, size=settings.INGEST_CHUNK_SIZE, overlap=settings.INGEST_CHUNK_OVERLAP
    )
    for start in range(0, len(pieces), 500):
        batch = pieces[start : start + 500]
        vectors = hashing_embed([p.text for p in batch], settings.INGEST_EMBED_DIMENSIONS)
        store.upsert_chunks(document_id=document.id, version=1, pieces=batch, vectors=vectors)
    return str(document.id)


def measure_stream(
    username: str, warm_id: str, document_id: str, format_: str, mode: str = "stream"
) -> dict:
    """In this (fresh) process: read `warm_id`'s content once, then `document_id`'s whole,
    and how far the peak RSS rose over the warmed process's. `mode` "keep" holds every
    piece until the end, as an answer built whole would: the control that shows what the
    measure sees when memory grows with the document."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    client.force_login(get_user_model().objects.get(username=username))

    process = psutil.Process()
    peak = 0

    def read(doc: str) -> int:
        nonlocal peak
        answer = client.get(f"/api/documents/{doc}/content", {"format": format_})
        assert answer.status_code == 200, answer.status_code
        kept, size = [], 0
        for at, piece in enumerate(
            cast("Iterator[bytes]", cast("StreamingHttpResponse", answer).streaming_content)
        ):
            size += len(piece)
            if mode == "keep":
                kept.append(piece)
            if at % SAMPLE_EVERY == 0:
                peak = max(peak, process.memory_info().rss)
        peak = max(peak, process.memory_info().rss)
        return size

    read(warm_id)
    gc.collect()
    warmed = process.memory_info().rss
    peak = warmed
    began = time.perf_counter()
    size = read(document_id)
    seconds = time.perf_counter() - began
    return {
        "bytes": size,
        "seconds": seconds,
        "warmed_kib": warmed // 1024,
        "rise_kib": (peak - warmed) // 1024,
    }


@dataclass
class Chunks:
    page_ms: list[float]
    neighbours_ms: list[float]
    count: int


def measure_chunks(owner: User, document_id: str, runs: int) -> Chunks:
    from rest_framework.test import APIClient

    from search.models import Chunk

    client = APIClient(HTTP_HOST="localhost")
    client.force_authenticate(owner)
    first = f"/api/documents/{document_id}/chunks/?page_size=100"
    link: str | None = first
    page_ms: list[float] = []
    for run in range(runs + 3):
        began = time.perf_counter()
        answer = client.get(link or first)
        took = (time.perf_counter() - began) * 1000
        assert answer.status_code == 200, answer.status_code
        link = answer.json()["next"]
        if run >= 3:  # the first three warm
            page_ms.append(took)
    ids = list(Chunk.objects.filter(document_id=document_id).values_list("id", flat=True))
    neighbours_ms = []
    for run in range(runs + 3):
        began = time.perf_counter()
        answer = client.get(f"/api/chunks/{ids[(run * 37) % len(ids)]}/", {"neighbours": 5})
        took = (time.perf_counter() - began) * 1000
        assert answer.status_code == 200, answer.status_code
        if run >= 3:
            neighbours_ms.append(took)
    return Chunks(page_ms, neighbours_ms, len(ids))


def _child(env: dict[str, str], *args: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "tests.bench.output", "--measure", *args],
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(BASE_DIR)},
        capture_output=True,
        text=True,
        check=False,
        cwd=BASE_DIR,
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-3000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def report(machine: str, pages: int, streams: dict, chunks: Chunks) -> str:
    lines = [
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `python -m "
        f"tests.bench.output`, code {code_version()}. {machine}",
        "",
        "Content read whole through the WSGI application in a fresh process, after a "
        "warm-up read of a 10-page document: the highest RSS seen while reading (every "
        f"{SAMPLE_EVERY} pieces) over the warmed process's. "
        "The control keeps every piece of the answer until its end, as an answer built "
        "whole would: what the measure shows when memory grows with the document.",
        "",
        "| document | format | bytes | seconds | MiB/s | peak RSS rise |",
        "|---|---|---|---|---|---|",
    ]
    for (size, format_, mode), found in streams.items():
        mib = found["bytes"] / 2**20
        shown = format_ if mode == "stream" else f"{format_}, held whole (the control)"
        lines.append(
            f"| {size:,} pages | {shown} | {found['bytes']:,} | {found['seconds']:.2f} | "
            f"{mib / found['seconds']:.1f} | {found['rise_kib'] / 1024:.1f} MiB |"
        )
    p95_page, p95_near = percentile(chunks.page_ms, 95), percentile(chunks.neighbours_ms, 95)
    verdict = "PASS" if max(p95_page, p95_near) <= CHUNK_TARGET_MS else "FAIL"
    lines += [
        "",
        f"Chunks of the {pages:,}-page document ({chunks.count:,} chunks), through Django's "
        f"test client, {len(chunks.page_ms)} reads each after 3 to warm:",
        "",
        "| read | p50 | p95 | target |",
        "|---|---|---|---|",
        f"| a page of 100 (following `next`) | {percentile(chunks.page_ms, 50):.1f} ms | "
        f"{p95_page:.1f} ms | p95 ≤ {CHUNK_TARGET_MS:g} ms |",
        f"| a chunk with 5 neighbours each side | {percentile(chunks.neighbours_ms, 50):.1f} "
        f"ms | {p95_near:.1f} ms | p95 ≤ {CHUNK_TARGET_MS:g} ms |",
        "",
        f"Verdict: {verdict}.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    parser.add_argument("--measure", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure_stream(*args.measure)))
        return
    with django_on_private_services("ingest-output-") as services:
        import django

        django.setup()
        from django.contrib.auth import get_user_model

        owner = get_user_model().objects.create_user(username="reader")
        print(f"storing documents of 10, 100 and {args.pages:,} pages", flush=True)
        warm, small, large = (stored_document(owner, n) for n in (10, 100, args.pages))
        streams = {}
        reads = [(100, small, f, "stream") for f in FORMATS]
        reads += [(args.pages, large, f, "stream") for f in FORMATS]
        reads.append((args.pages, large, "json", "keep"))
        for size, doc, format_, mode in reads:
            found = _child(services.env, "reader", warm, doc, format_, mode)
            streams[(size, format_, mode)] = found
            print(f"content {size} pages {format_} {mode}: {found}", flush=True)
        chunks = measure_chunks(owner, large, args.runs)
        text = report(describe_machine(services.env), args.pages, streams, chunks)
    print(text)
    if not args.no_write:
        write_section(RESULTS, "Content and chunks", text, by="python -m tests.bench.output")


if __name__ == "__main__":
    main(sys.argv[1:])
