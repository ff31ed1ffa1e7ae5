"""A file larger than the reader's memory is read a page at a time, by either extractor,
with the OCR lanes' look for scanned pages: direct uploads take files of gigabytes."""

import io

import pytest

from jobs.models import Lane
from jobs.worker.processing import ocr_order
from search.pipeline import reader_pdfium
from search.pipeline.extract import read_document
from tests.harness.large_pdf import MiB, write_large_pdf

MEMORY_MB = 256


@pytest.mark.parametrize("extractor", ["pdfminer", "pdfium"])
def test_a_file_larger_than_the_readers_memory_is_read_whole(tmp_path, settings, extractor):
    settings.INGEST_EXTRACTOR = extractor
    path = tmp_path / "large.pdf"
    size = write_large_pdf(path, pages=40, image_bytes=8 * MiB)

    extracted = read_document(
        path, max_pages=100, timeout=120, memory_mb=MEMORY_MB, ocr=ocr_order(Lane.FAST)
    )

    assert size > MEMORY_MB * MiB * 1.2
    firsts = [page.text.split(":")[0] for page in extracted.pages]
    assert firsts == [f"Line 0 of page {number}" for number in range(1, 41)]
    assert all("Line 29 of page" in page.text for page in extracted.pages)
    assert extracted.scans == []  # the text layer is plenty: no page for OCR


@pytest.mark.parametrize("block", [1, 3, 7, 8, 11, 12, 64])
def test_the_bomb_check_finds_each_stream_once_whatever_cuts_the_file(monkeypatch, block):
    data = (
        b"%PDF-1.4\n1 0 obj << /Length 3 >>\nstream\nabc\nendstream endobj\n"
        b"2 0 obj << /Length 2 >>\nstream\r\nzz\nendstream endobj\nstream\n"
    )
    monkeypatch.setattr(reader_pdfium, "SCAN_BLOCK", block)

    found = list(reader_pdfium._stream_starts(io.BytesIO(data)))

    assert found == [m.end() for m in reader_pdfium.STREAM.finditer(data)]
    assert len(found) == 3
