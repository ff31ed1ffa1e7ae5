"""OCR in the sandboxed child: which pages the auto rule picks (on the corpus), the limits
that end a heavy scan once, one thread, and the walls still up. Real Tesseract, real PDFium.
"""

import threading
from pathlib import Path

import pypdfium2  # type: ignore[import-untyped]
import pytest
from django.conf import settings as django_settings
from PIL import Image

from search.ocr_checks import check_ocr_languages
from search.pipeline.errors import TooComplex, TooManyPages
from search.pipeline.ocr import needs_ocr, render
from search.pipeline.page import OcrOrder
from search.pipeline.sandbox.process import Sandbox
from tests.factories import CORPUS, make_pdf, scanned_pdf, text_pdf
from tests.search.scans import image_pages_pdf

CONTRACT = "The tenant pays the rent on the first day of each month to the landlord."


def ocr_child() -> Sandbox:
    return Sandbox(
        memory_mb=django_settings.INGEST_OCR_MEMORY_MB,
        ocr_languages="eng",
        tessdata=django_settings.INGEST_OCR_TESSDATA,
    )


def pages_needing_ocr(path: Path, *, force: bool = False) -> list[int]:
    pdf = pypdfium2.PdfDocument(path)
    try:
        texts = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
        return needs_ocr(pdf, texts, force=force)
    finally:
        pdf.close()


# The corpus's pages, as the auto rule must see them (docs/running/ocr.md).
SCANS = [
    "py-pdf__sample-files/019-grayscale-image/grayscale-image.pdf",
    "py-pdf__sample-files/007-imagemagick-images/imagemagick-CCITTFaxDecode.pdf",
    "pdfminer__pdfminer.six/samples/contrib/pdf-with-jbig2.pdf",
]
TEXT_DOCUMENTS = [
    "py-pdf__sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf",
    "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
    # A scan OCR'd before: a full-page image under a hidden text layer, which is kept.
    "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
]


@pytest.mark.parametrize("name", SCANS)
def test_the_auto_rule_picks_a_scans_pages(name):
    assert pages_needing_ocr(CORPUS / name) == [0]


@pytest.mark.parametrize("name", TEXT_DOCUMENTS)
def test_the_auto_rule_keeps_a_text_layer_even_over_a_page_image(name):
    assert pages_needing_ocr(CORPUS / name) == []


def test_force_picks_every_page():
    name = "py-pdf__sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf"
    assert pages_needing_ocr(CORPUS / name, force=True) == [0, 1, 2, 3]


def test_a_page_too_large_for_the_pixel_cap_is_rendered_smaller(tmp_path):
    poster = pypdfium2.PdfDocument.new()
    poster.new_page(72 * 40, 72 * 30)  # 40 x 30 inches: 108 million pixels at 300 dpi
    try:
        image = render(poster, 0, OcrOrder("read", dpi=300, max_pixels=4_000_000))
    finally:
        poster.close()
    assert image.width * image.height <= 4_000_000
    assert image.width > 2000  # smaller, not shrunk to nothing


def test_an_image_past_the_pixel_cap_is_too_complex_at_once(tmp_path):
    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(image_pages_pdf(width=40_000, height=40_000))
    child = ocr_child()
    try:
        with pytest.raises(TooComplex, match="40000 x 40000 pixels"):
            child.read_pages(bomb, max_pages=10, timeout=60, ocr=OcrOrder("read"))
    finally:
        child.stop()


def test_more_pages_to_read_than_the_limit_is_too_many_pages_before_any_is_read(tmp_path):
    scan = tmp_path / "long-scan.pdf"
    scan.write_bytes(image_pages_pdf(pages=2000))
    child = Sandbox(memory_mb=512)  # finding is enough: no engine needed
    try:
        with pytest.raises(TooManyPages, match="2000 pages to read by OCR; the limit is 500"):
            child.read_pages(scan, max_pages=2000, timeout=120, ocr=OcrOrder("find", max_pages=500))
    finally:
        child.stop()


def test_a_page_past_its_cpu_budget_is_too_complex_whatever_the_clock_says(tmp_path):
    dense = tmp_path / "dense.pdf"
    dense.write_bytes(scanned_pdf(*[" ".join([CONTRACT] * 30)] * 2, dpi=300))
    child = ocr_child()
    try:
        with pytest.raises(TooComplex, match=r"Page 1 needs more than 0.3 s of CPU time"):
            child.read_pages(
                dense, max_pages=10, timeout=60, ocr=OcrOrder("read", page_seconds=0.3)
            )
    finally:
        child.stop()
    assert not child.alive()


@pytest.mark.parametrize("degrees", [-2, 2])
def test_a_page_scanned_askew_is_straightened_and_read_as_well_as_a_straight_one(tmp_path, degrees):
    prose = " ".join([CONTRACT] * 12)
    straight = pypdfium2.PdfDocument(text_pdf(prose))
    image = straight[0].render(scale=200 / 72, grayscale=True).to_pil()
    straight.close()
    askew = image.rotate(degrees, resample=Image.BICUBIC, expand=True, fillcolor=255)
    scan = tmp_path / "askew.pdf"
    askew.save(scan, format="PDF", resolution=200)
    child = ocr_child()
    try:
        reading = child.read_pages(scan, max_pages=10, timeout=120, ocr=OcrOrder("read"))
    finally:
        child.stop()

    words = reading.scanned[0].text.split()
    assert len(words) >= 0.9 * len(prose.split())
    assert "landlord." in words


def test_the_ocr_child_reads_on_one_thread_behind_its_walls(tmp_path):
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(scanned_pdf(CONTRACT, CONTRACT, CONTRACT, dpi=200))
    child = ocr_child()
    threads: list[int] = []

    def count_threads(done: int, total: int) -> None:
        status = Path(f"/proc/{child.pid}/status").read_text()
        threads.append(int(status.split("Threads:")[1].split()[0]))

    try:
        reading = child.read_pages(
            scan, max_pages=10, timeout=120, ocr=OcrOrder("read"), on_scans=count_threads
        )
    finally:
        child.stop()

    assert reading.scans == [0, 1, 2]
    assert "first day of each month" in reading.scanned[1].text
    assert threads
    assert set(threads) == {1}
    assert child.walls is not None
    assert child.walls.get("landlock", 0) > 0 or "lost" in child.walls


def test_a_text_document_needs_no_ocr_and_a_child_without_an_engine_says_so(tmp_path):
    text = tmp_path / "text.pdf"
    text.write_bytes(make_pdf(pages=2))
    child = Sandbox(memory_mb=512)
    try:
        reading = child.read_pages(text, max_pages=10, timeout=60, ocr=OcrOrder("find"))
    finally:
        child.stop()
    assert reading.scans == []
    assert len(reading.texts) == 2


def test_a_missing_language_file_is_found_at_start(settings, tmp_path):
    settings.INGEST_OCR_LANGUAGES = "eng+klingon"
    [error] = check_ocr_languages()
    assert error.id == "search.E002"
    assert "klingon" in error.msg
    assert "make ocr" in error.hint
    settings.INGEST_OCR = "off"
    assert check_ocr_languages() == []


def test_two_readings_at_once_each_get_their_own_child(tmp_path):
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(scanned_pdf(CONTRACT, dpi=150))
    results: list[str] = []

    def read() -> None:
        child = ocr_child()
        try:
            reading = child.read_pages(scan, max_pages=10, timeout=120, ocr=OcrOrder("read"))
            results.append(reading.scanned[0].text)
        finally:
            child.stop()

    workers = [threading.Thread(target=read) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(results) == 2
    assert all("rent" in text for text in results)
