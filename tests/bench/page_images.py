"""`python -m tests.bench.page_images`: what a page image costs (GET
/api/documents/{id}/pages/{n}.png, documents/pages.py), at 1000 and 2000 pixels wide.

Two pages: a text page (the structure benchmark's report, A4) and a colour photograph
(the corpus's cmyk-image.pdf, US Letter). For each width:

- fresh: a sandboxed child started and asked to draw (a web process's first drawing, or
  the first for another owner), until the PNG is back;
- warm: a started child drawing (the pool's usual case), after one drawing untimed;
- cached: the kept PNG read back from the disk cache (documents/page_cache.py).

Memory is the child's peak resident size (VmHWM) after one drawing, beside a child that has
drawn nothing; the web process holds only the PNG. Needs no services; takes seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from documents import page_cache
from search.pipeline.sandbox.process import Sandbox
from tests.bench.report import RESULTS, percentile, write_section
from tests.bench.structure import corpus
from tests.factories import CORPUS

MEMORY_MB = 1024
TIMEOUT = 10.0
WIDTHS = (1000, 2000)
DOCUMENT = uuid.UUID(int=1)  # the cache's directory for the benchmark's pages
PHOTO = CORPUS / "py-pdf__sample-files/023-cmyk-image/cmyk-image.pdf"


def timed(task: Callable[[], object], times: int) -> list[float]:
    """Milliseconds each of `times` calls of `task` took."""
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        task()
        spent.append((time.perf_counter() - started) * 1000)
    return spent


def peak_mb(sandbox: Sandbox) -> float:
    """The child's peak resident size so far, in MB (VmHWM)."""
    status = Path(f"/proc/{sandbox.pid}/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def fresh(path: Path, width: int) -> bytes:
    sandbox = Sandbox(memory_mb=MEMORY_MB, extractor="pdfium")
    try:
        return sandbox.render_page(path, number=1, width=width, timeout=TIMEOUT)
    finally:
        sandbox.stop()


def measure(path: Path, width: int, rounds: int) -> dict[str, object]:
    cold = timed(lambda: fresh(path, width), max(2, rounds // 10))
    sandbox = Sandbox(memory_mb=MEMORY_MB, extractor="pdfium")
    try:
        sandbox.render_page(path, number=1, width=width, timeout=TIMEOUT)  # start-up, untimed
        warm = timed(
            lambda: sandbox.render_page(path, number=1, width=width, timeout=TIMEOUT), rounds
        )
        peak = peak_mb(sandbox)
    finally:
        sandbox.stop()
    png = fresh(path, width)
    page_cache.put(DOCUMENT, f"{path.stem}-{width}", png)
    cached = timed(lambda: page_cache.get(DOCUMENT, f"{path.stem}-{width}"), rounds * 10)
    return {"fresh": cold, "warm": warm, "cached": cached, "peak_mb": peak, "bytes": len(png)}


def idle_peak_mb() -> float:
    """A child that is ready and has drawn nothing: what drawing adds is over this."""
    sandbox = Sandbox(memory_mb=MEMORY_MB, extractor="pdfium")
    try:
        sandbox._wait_until_ready()
        return peak_mb(sandbox)
    finally:
        sandbox.stop()


def machine() -> str:
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo if "model name" in line), "")
    return f"{cpu or 'an unknown CPU'}, {os.cpu_count()} cores"


def ms(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} / {percentile(values, 95):.0f}"


def report(results: dict[tuple[str, int], dict], idle: float, rounds: int) -> str:
    lines = [
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        f"`python -m tests.bench.page_images --rounds {rounds}` on {machine()}: page 1 of "
        "each file, "
        "milliseconds as median / p95 (fresh: a tenth as many rounds; cached: ten times as "
        f"many). A child ready to draw peaks at {idle:.0f} MB.",
        "",
        "| page | width | PNG | fresh child: ms | warm child: ms | cached: ms | child's peak: MB |",
        "|---|---|---|---|---|---|---|",
    ]
    for (name, width), r in results.items():
        lines.append(
            f"| {name} | {width} | {r['bytes'] / 1024:.0f} KiB | {ms(r['fresh'])} "
            f"| {ms(r['warm'])} | {statistics.median(r['cached']):.2f} "
            f"/ {percentile(r['cached'], 95):.2f} | {r['peak_mb']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="warm drawings per case")
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-page-images-") as scratch:
        settings.configure(
            PAGE_IMAGE_CACHE_DIR=Path(scratch) / "cache", INGEST_PAGE_IMAGE_CACHE_MB=64
        )
        text_page = Path(scratch) / "report.pdf"
        text_page.write_bytes(corpus.report().pdf)
        pages = {"text (A4)": text_page, "colour photograph (Letter)": PHOTO}
        idle = idle_peak_mb()
        results = {
            (name, width): measure(path, width, args.rounds)
            for name, path in pages.items()
            for width in WIDTHS
        }
    text = report(results, idle, args.rounds)
    print(text)
    if not args.no_write:
        write_section(RESULTS, "bench-page-images", text, by="python -m tests.bench.page_images")


if __name__ == "__main__":
    main()
