"""extract_document reads in a child process: hostile files cost the worker nothing."""

import os
import resource
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from search.pipeline.clean import clean_text
from search.pipeline.errors import Corrupt, ExtractTimeout, TooComplex, TooManyPages, TransientError
from search.pipeline.extract import extract_document
from search.pipeline.sandbox.process import read_in_sandbox
from tests.factories import CORPUS, make_pdf
from tests.harness.readers import our_processes, reading_reader
from tests.search.conftest import children_cpu_seconds
from tests.search.handmade import deflate_bomb, pdf_with_content

# 117 pages, about 12 s to read on this machine: a stand-in for a file that takes forever.
GEOTOPO = CORPUS / "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"
LIMITS = {"max_pages": 200, "timeout": 60.0, "memory_mb": 256}


def write(directory: Path, content: bytes) -> Path:
    path = directory / "upload.pdf"
    path.write_bytes(content)
    return path


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def gone(pid: int) -> bool:
    """Reaped: no process, not even a zombie, has this pid among our children."""
    return pid not in our_processes()


def test_pages_come_back_from_the_child_numbered_with_their_text(tmp_path):
    path = write(tmp_path, make_pdf(pages=3, words_per_page=20))

    pages = extract_document(path, **LIMITS)

    assert [page.number for page in pages] == [1, 2, 3]
    assert all(clean_text(page.text).startswith(f"Page {page.number}.") for page in pages)


def test_a_decompression_bomb_fails_as_too_complex_and_costs_the_worker_no_memory(tmp_path):
    path = write(tmp_path, pdf_with_content(deflate_bomb(gib=4), filters=b"/FlateDecode"))
    peak_before = peak_rss_mb()
    started = time.monotonic()

    with pytest.raises(TooComplex) as caught:
        extract_document(path, **LIMITS)

    assert caught.value.code == "too_complex"
    assert "256 MB" in caught.value.detail
    assert time.monotonic() - started < 30
    assert peak_rss_mb() - peak_before < 64


def test_deeply_nested_objects_fail_cleanly_as_corrupt(tmp_path):
    nested = b"[" * 100_000 + b"]" * 100_000
    path = write(tmp_path, pdf_with_content(b"BT /F1 12 Tf 72 720 Td " + nested + b" TJ ET"))

    with pytest.raises(Corrupt):
        extract_document(path, **LIMITS)


def test_a_pdf_that_needs_more_than_its_cpu_time_is_too_complex_at_once(patient_wall_clock):
    spent = children_cpu_seconds()

    with pytest.raises(TooComplex) as caught:
        read_in_sandbox(GEOTOPO, max_pages=200, timeout=1.0, memory_mb=1024)

    # Permanent: CPU time is the file's own weight, and a retry would need as much.
    assert caught.value.detail.startswith("Reading the PDF takes more than 1 s of CPU time")
    # At once: one child's budget (and its start-up), not a second try. Counted in CPU
    # seconds, which a busy machine does not stretch.
    assert children_cpu_seconds() - spent < 2 * 1.0


def test_a_reader_starved_of_cpu_times_out_as_transient_and_leaves_no_child_behind():
    before = our_processes()
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(read_in_sandbox, GEOTOPO, max_pages=200, timeout=3.0, memory_mb=1024)
        reader = reading_reader(before)
        # As on a machine too busy to run it: from now on the reader gets no CPU at all.
        os.kill(reader, signal.SIGSTOP)

        with pytest.raises(ExtractTimeout) as caught:
            future.result(timeout=30)

    assert caught.value.code == "extract_timeout"
    assert caught.value.detail.startswith("Reading the PDF took longer than 4.5 s on a busy")
    assert gone(reader)
    assert "timed out twice in a row" in caught.value.for_good().detail


def test_too_many_pages_fail_before_any_page_is_read():
    started = time.monotonic()

    with pytest.raises(TooManyPages) as caught:
        extract_document(GEOTOPO, max_pages=10, timeout=60, memory_mb=1024)

    assert caught.value.detail == "The PDF has 117 pages; the limit is 10."
    # Reading the pages would take about 12 s; counting them takes a fraction of one.
    assert time.monotonic() - started < 5


def test_exactly_max_pages_is_allowed(tmp_path):
    path = write(tmp_path, make_pdf(pages=3, words_per_page=5))

    assert len(extract_document(path, max_pages=3, timeout=60, memory_mb=256)) == 3
    with pytest.raises(TooManyPages, match="has 3 pages; the limit is 2"):
        extract_document(path, max_pages=2, timeout=60, memory_mb=256)


def test_a_child_killed_from_outside_is_a_transient_crash():
    before = our_processes()
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(read_in_sandbox, GEOTOPO, max_pages=200, timeout=60, memory_mb=1024)
        reader = reading_reader(before)
        os.kill(reader, signal.SIGKILL)

        with pytest.raises(TransientError) as caught:
            future.result(timeout=30)

    assert caught.value.code == "extractor_crashed"
    assert "SIGKILL" in caught.value.detail
    assert gone(reader)


def test_a_missing_file_is_an_ordinary_error_and_starts_nothing(tmp_path):
    before = our_processes()

    with pytest.raises(FileNotFoundError):
        extract_document(tmp_path / "gone.pdf", **LIMITS)
    with pytest.raises(FileNotFoundError):
        read_in_sandbox(tmp_path / "gone.pdf", **LIMITS)

    assert our_processes() <= before
