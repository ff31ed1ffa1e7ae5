"""Each engine reads the scanned pages; what it read, its CPU time and its memory.

Tesseract runs as the service runs it: in the sandboxed child (search.pipeline.sandbox),
started with its languages, one thread (the child may start none), asked to read each
page with OcrOrder("read", force=True, dpi=...) as the `ocr` lane's worker asks. One child
reads every page of a run, one page per document, as a warm child of the pool does; its
CPU time before and after each page (the kernel's count, user + system) is that page's
cost, and its VmHWM (/proc/<pid>/status) before it is stopped is its peak memory.

RapidOCR is not the service's engine and has no child of its own: it runs in this process
(`--engine rapidocr`, where it is importable), on the image the service's own renderer
(search.pipeline.ocr.render) makes of the page, with one onnxruntime thread
(intra_op_num_threads = inter_op_num_threads = 1) and otherwise its defaults (the
PP-OCRv6 small models it ships); its lines are joined in the order it gives them.
"""

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from search.pipeline.errors import PermanentError, TransientError
from search.pipeline.page import OcrOrder
from tests.bench.ocr.corpus import SamplePage
from tests.bench.ocr.metric import Errors, cer, word_recall

# The child's limits: the service's defaults (INGEST_OCR_MEMORY_MB, a page's reading).
MEMORY_MB = 1536
TIMEOUT = 300.0


@dataclass(frozen=True)
class PageResult:
    page: SamplePage
    text: str
    cpu: float  # seconds of CPU time for this page
    errors: Errors
    words: tuple[int, int]  # (reference words found, reference words)


@dataclass
class Run:
    """One engine's reading of a set of pages in one variant."""

    engine: str
    variant: str
    languages: str
    pages: list[PageResult]
    peak_rss_mb: float
    startup_cpu: float = 0.0  # seconds: the child's start, the engine's languages loaded
    startup_rss_mb: float = 0.0
    failed: dict[str, str] = field(default_factory=dict)  # page name: the error's code

    def read(self) -> list[PageResult]:
        """The pages the engine read (those that failed left out)."""
        return [result for result in self.pages if result.page.name not in self.failed]


def judged(page: SamplePage, text: str, cpu: float) -> PageResult:
    return PageResult(page, text, cpu, cer(text, page.truth), word_recall(text, page.truth))


def status_mb(pid: int, field: str) -> float:
    """A memory figure of /proc/<pid>/status ("VmHWM", "VmRSS"), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise LookupError(f"no {field} for pid {pid}")


def _cpu(pid: int) -> float:
    import psutil  # not where RapidOCR runs

    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def tesseract(
    pages: list[SamplePage],
    paths: list[Path],
    *,
    variant: str,
    languages: str,
    tessdata: str,
    dpi: int = 300,
) -> Run:
    """`pages` (scanned as `paths`) read in one sandboxed child started with `languages`.
    A page that ends the child (an error answer, a crash) is kept with no text and its
    error (`Run.failed`), and a new child reads the next page."""
    from search.pipeline.sandbox.process import Sandbox

    order = OcrOrder("read", force=True, dpi=dpi)
    run = Run("tesseract", variant, languages, [], 0.0)

    def start() -> Sandbox:
        child = Sandbox(
            memory_mb=MEMORY_MB, extractor="pdfminer", ocr_languages=languages, tessdata=tessdata
        )
        # Ready, and the engine loaded: the first page's text layer read without OCR.
        child.read_pages(paths[0], max_pages=1, timeout=TIMEOUT)
        return child

    sandbox = start()
    run.startup_cpu, run.startup_rss_mb = _cpu(sandbox.pid), status_mb(sandbox.pid, "VmRSS")
    try:
        for page, path in zip(pages, paths, strict=True):
            before = _cpu(sandbox.pid)
            try:
                reading = sandbox.read_pages(path, max_pages=1, timeout=TIMEOUT, ocr=order)
            except (PermanentError, TransientError) as exc:
                run.pages.append(judged(page, "", 0.0))
                run.failed[page.name] = exc.code
                sandbox = start()
                continue
            cpu = _cpu(sandbox.pid) - before
            run.peak_rss_mb = max(run.peak_rss_mb, status_mb(sandbox.pid, "VmHWM"))
            scanned = reading.scanned.get(0)
            run.pages.append(judged(page, scanned.text if scanned else "", cpu))
    finally:
        sandbox.stop()
    return run


def reset_peak() -> None:
    """Start this process's VmHWM again from its present VmRSS (Linux's clear_refs)."""
    Path("/proc/self/clear_refs").write_text("5")


def rapidocr_available() -> bool:
    try:
        import rapidocr  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        return False
    return True


def rapidocr(pages: list[SamplePage], paths: list[Path], *, variant: str, dpi: int = 300) -> Run:
    """`pages` (scanned as `paths`) read by RapidOCR in this process, one thread."""
    import numpy
    import pypdfium2  # type: ignore[import-untyped]
    from rapidocr import RapidOCR

    from search.pipeline.ocr import render

    reset_peak()  # what building the corpus took is not the engine's
    started = time.process_time()
    engine = RapidOCR(
        params={
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            "Global.log_level": "warning",
        }
    )
    startup_cpu = time.process_time() - started
    startup_rss = status_mb(os.getpid(), "VmRSS")
    order = OcrOrder("read", force=True, dpi=dpi)
    results = []
    for page, path in zip(pages, paths, strict=True):
        before = time.process_time()
        pdf = pypdfium2.PdfDocument(path)
        try:
            image = render(pdf, 0, order)
        finally:
            pdf.close()
        found = engine(numpy.asarray(image.convert("RGB")))
        text = "\n".join(found.txts or ())
        results.append(judged(page, text, time.process_time() - before))
    peak = status_mb(os.getpid(), "VmHWM")
    return Run("rapidocr", variant, "PP-OCRv6 small", results, peak, startup_cpu, startup_rss)
