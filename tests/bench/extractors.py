"""`python -m tests.bench.extractors`: pages per second of each extractor, pdfminer.six and PDFium.

On the corpus files the manifest expects to succeed, one after the other in one thread,
each extractor (INGEST_EXTRACTOR) reads every file in the sandbox twice over:

- fresh: a child process started for each document (read_in_sandbox), start-up included;
- warm: one child for all of them (search.pipeline.sandbox.process.Sandbox, as the worker's pool
  keeps them ready), started before the clock does: the reading plus one round trip each.

Also counts each file's non-space characters (search.pipeline.classify.nonspace), to say
how close PDFium's text comes to pdfminer's. Needs no services.
"""

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from search.pipeline.classify import nonspace
from search.pipeline.reader import EXTRACTORS
from search.pipeline.sandbox.process import Sandbox, read_in_sandbox
from tests.bench.report import RESULTS, write_section
from tests.factories import CORPUS, corpus_rows

MAX_PAGES = 2000
MEMORY_MB = 1024
TIMEOUT = 300


@dataclass
class Result:
    pages: int
    fresh_seconds: float
    warm_seconds: float
    chars: dict[Path, int]  # non-space characters per file

    @property
    def total(self) -> int:
        return sum(self.chars.values())


def succeeding_files() -> list[Path]:
    rows = corpus_rows()
    return [(CORPUS / row["file"]).resolve() for row in rows if row["expect"] == "succeeded"]


def measure(files: list[Path], extractor: str) -> Result:
    started = time.perf_counter()
    for path in files:
        read_in_sandbox(
            path, max_pages=MAX_PAGES, timeout=TIMEOUT, memory_mb=MEMORY_MB, extractor=extractor
        )
    fresh_seconds = time.perf_counter() - started
    sandbox = Sandbox(memory_mb=MEMORY_MB, extractor=extractor)
    try:
        # The first document also waits for the child's start-up: read it before the clock.
        sandbox.read(files[0], max_pages=MAX_PAGES, timeout=TIMEOUT)
        started = time.perf_counter()
        texts = [sandbox.read(path, max_pages=MAX_PAGES, timeout=TIMEOUT) for path in files]
        warm_seconds = time.perf_counter() - started
    finally:
        sandbox.stop()
    pairs = zip(files, texts, strict=True)
    chars = {path: sum(nonspace(text) for text in pages) for path, pages in pairs}
    return Result(sum(len(pages) for pages in texts), fresh_seconds, warm_seconds, chars)


def report(files: list[Path], results: dict[str, Result]) -> str:
    base, fast = results["pdfminer"], results["pdfium"]
    lines = [
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        f"`python -m tests.bench.extractors`: {len(files)} corpus files the manifest expects to "
        f"succeed, {base.pages} pages, one thread of one process.",
        "",
        "| extractor | pages | fresh sandbox: s | pages/s | warm sandbox: s | pages/s "
        "| non-space characters |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in EXTRACTORS:
        r = results[name]
        lines.append(
            f"| {name} | {r.pages} | {r.fresh_seconds:.1f} | {r.pages / r.fresh_seconds:.1f} "
            f"| {r.warm_seconds:.2f} | {r.pages / r.warm_seconds:.1f} "
            f"| {r.total} |"
        )
    ratios = {path: fast.chars[path] / base.chars[path] - 1 for path in files if base.chars[path]}
    low, high = min(ratios, key=ratios.__getitem__), max(ratios, key=ratios.__getitem__)
    lines += [
        "",
        f"PDFium against pdfminer.six: {base.fresh_seconds / fast.fresh_seconds:.1f}x as fast "
        f"with a fresh sandbox, {base.warm_seconds / fast.warm_seconds:.1f}x with a warm one; "
        f"non-space characters per file from {ratios[low]:+.1%} ({low.name}) to "
        f"{ratios[high]:+.1%} ({high.name}) of pdfminer's, {fast.total / base.total - 1:+.2%} "
        "in all.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args()
    files = succeeding_files()
    results = {name: measure(files, name) for name in EXTRACTORS}
    text = report(files, results)
    print(text)
    if not args.no_write:
        write_section(RESULTS, "bench-extractors", text, by="python -m tests.bench.extractors")


if __name__ == "__main__":
    main()
