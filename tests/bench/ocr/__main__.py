"""`python -m tests.bench.ocr`: how well, how fast and in how much memory scans are read.

Builds the scanned corpus (tests/bench/ocr/corpus.py: 60 born-digital pages, English and
German, made image-only in three variants) in a temporary directory, has the engine read
every page and compares what it read with the page's own text layer
(tests/bench/ocr/metric.py: an order-tolerant CER and word recall). With Tesseract, the
service's engine, it also measures each language's cost (eng, deu, chi_sim, eng+deu on
the same pages) and runs a scan through a private stack (tests/bench/ocr/stack.py): its
time to ready, and a born-digital upload's time to ready with the OCR lane idle and busy.
Prints the tables and writes the `bench-ocr` block of docs/working/benchmark-results.md
(`--engine rapidocr`: the `bench-ocr-rapidocr` block, and nothing through the stack).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tests.bench.ocr import corpus, engines, report
from tests.bench.ocr.corpus import VARIANTS, SamplePage
from tests.bench.ocr.engines import Run
from tests.bench.report import RESULTS, write_json, write_section

if TYPE_CHECKING:  # psycopg and the stack are not needed to read pages
    from tests.bench.ocr.stack import StackResult

LANGUAGE_SETS = ("eng", "deu", "chi_sim", "eng+deu")
LANGUAGE_PAGES = 5
VAR_BENCH = (
    Path(__file__).resolve().parents[3] / "var" / "bench"
)  # of each language, for the languages' costs


def say(text: str) -> None:
    print(f"[tests.bench.ocr {time.strftime('%H:%M:%S')}] {text}", flush=True)


def read_variants(pages: list[SamplePage], root: Path, engine: str, tessdata: str) -> list[Run]:
    """Every variant of every page read, one run per variant and language."""
    runs = []
    for variant in VARIANTS:
        paths = corpus.build(pages, variant, root / variant)
        for language in ("eng", "deu"):
            mine = [(page, path) for page, path in zip(pages, paths, strict=True)]
            mine = [(page, path) for page, path in mine if page.language == language]
            if not mine:
                continue
            ours, files = [page for page, _ in mine], [path for _, path in mine]
            if engine == "rapidocr":
                run = engines.rapidocr(ours, files, variant=variant)
                run.languages = f"{language} pages"
            else:
                run = engines.tesseract(
                    ours, files, variant=variant, languages=language, tessdata=tessdata
                )
            say(
                f"{variant}, {run.languages}: CER {report.pooled_cer(run.read()):.1%}, "
                f"{report.pages_per_core_second(run.read()):.2f} pages/s per core"
            )
            runs.append(run)
    return runs


def language_costs(pages: list[SamplePage], root: Path, tessdata: str, count: int) -> list[Run]:
    """Each language set reads the same pages: `count` English and `count` German ones."""
    chosen = [p for p in pages if p.language == "eng"][:count]
    chosen += [p for p in pages if p.language == "deu"][:count]
    paths = corpus.build(chosen, "clean-300", root / "languages")
    runs = []
    for languages in LANGUAGE_SETS:
        run = engines.tesseract(
            chosen, paths, variant="clean-300", languages=languages, tessdata=tessdata
        )
        say(f"{languages}: {sum(r.cpu for r in run.read()) / len(chosen):.2f} s a page")
        runs.append(run)
    return runs


def scan_for_stack(pages: list[SamplePage], count: int) -> bytes:
    """One PDF of the sample's first `count` English pages in the "scanned" variant."""
    chosen = [page for page in pages if page.language == "eng"][:count]
    images = [corpus.variant_image(page, "scanned", page.order)[0] for page in chosen]
    return corpus.image_pdf(images, 300, 50)


def versions(engine: str) -> str:
    from importlib.metadata import version

    if engine == "rapidocr":
        return f"RapidOCR {version('rapidocr')}, onnxruntime {version('onnxruntime')}"
    import tesserocr  # type: ignore[import-untyped]

    tesseract = tesserocr.tesseract_version().split()[1]
    return f"Tesseract {tesseract} through tesserocr {version('tesserocr')}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 pages, a 3-page scan")
    parser.add_argument("--engine", choices=("tesseract", "rapidocr"), default="tesseract")
    parser.add_argument("--every", type=int, default=1, metavar="N", help="every N-th page")
    parser.add_argument("--no-stack", action="store_true", help="no run through the stack")
    parser.add_argument("--no-write", action="store_true", help="leave the results page alone")
    args = parser.parse_args()
    if args.engine == "rapidocr" and not engines.rapidocr_available():
        sys.exit("RapidOCR is not importable here: it is no requirement of the project.")
    from config.common.tessdata import default_tessdata

    tessdata = default_tessdata()
    pages = corpus.sample(quick=args.quick)[:: args.every]
    root = Path(tempfile.mkdtemp(prefix="ingest-bench-ocr-corpus-"))
    load_before = os.getloadavg()
    stack: StackResult | None = None
    languages: list[Run] = []
    try:
        say(f"{len(pages)} pages, {args.engine}")
        if args.engine == "tesseract" and not args.no_stack:
            # First, while nothing else of this run is using the machine.
            from tests.bench.ocr.stack import measure

            scan_pages, uploads = (3, 3) if args.quick else (40, 8)
            stack = measure(scan_for_stack(pages, scan_pages), scan_pages, uploads, say)
        runs = read_variants(pages, root, args.engine, tessdata)
        if args.engine == "tesseract":
            languages = language_costs(pages, root, tessdata, 1 if args.quick else LANGUAGE_PAGES)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    text = render(args, pages, runs, languages, stack, load_before)
    print(text)
    saved = save_json(args.engine, runs + languages, stack)
    say(f"per-page figures in {saved}")
    if not args.no_write:
        by = " ".join(["python -m tests.bench.ocr", *sys.argv[1:]])
        section = "bench-ocr" if args.engine == "tesseract" else "bench-ocr-rapidocr"
        write_section(RESULTS, section, text, by=by)


def save_json(engine: str, runs: list[Run], stack: StackResult | None) -> Path:
    """Every page's figures, under var/bench/ (git-ignored), as the other benches do."""
    rows = [
        {
            "engine": run.engine,
            "variant": run.variant,
            "languages": run.languages,
            "page": result.page.name,
            "language": result.page.language,
            "cpu": round(result.cpu, 3),
            "cer": round(result.errors.rate, 4),
            "errors": [result.errors.edits, result.errors.insertions, result.errors.deletions],
            "reference": result.errors.reference,
            "words": list(result.words),
            "failed": run.failed.get(result.page.name, ""),
            "text": result.text,
        }
        for run in runs
        for result in run.pages
    ]
    peaks = [
        {"variant": r.variant, "languages": r.languages, "peak_mb": r.peak_rss_mb} for r in runs
    ]
    payload = {"pages": rows, "peaks": peaks, "stack": stack.__dict__ if stack else None}
    return write_json(VAR_BENCH, f"ocr-{engine}-{time.strftime('%Y%m%d-%H%M%S')}", payload)


def render(
    args: argparse.Namespace,
    pages: list[SamplePage],
    runs: list[Run],
    languages: list[Run],
    stack: StackResult | None,
    load_before: tuple[float, float, float],
) -> str:
    english = sum(page.language == "eng" for page in pages)
    load = ", ".join(f"{value:.1f}" for value in load_before)
    lines = [
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `python -m "
        f"tests.bench.ocr{' ' if sys.argv[1:] else ''}{' '.join(sys.argv[1:])}`: "
        f"{len(pages)} pages ({english} English, {len(pages) - english} German), "
        f"{versions(args.engine)}, one thread, rendered at 300 dpi; {os.cpu_count()} cores, "
        f"load average {load} at the start.",
        "",
        *report.variant_table(runs),
        "",
        report.floor(pages),
        "",
        *report.file_table(runs),
        "",
        report.worst(runs, "clean-300"),
    ]
    if broken := report.failures(runs):
        lines += ["", "Pages that ended the child (left out of the figures above):", *broken]
    if args.every == 1 and not args.quick:
        lines += ["", *report.subset_table(runs, report.COMPARE_EVERY)]
    if languages:
        lines += ["", "Each language's cost, on the same clean 300 dpi pages:", ""]
        lines += report.language_table(languages)
    if stack is not None:
        lines += ["", *report.stack_table(stack)]
    lines += ["", *report.targets(runs, stack)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
