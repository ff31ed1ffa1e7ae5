"""INGEST_EXTRACTOR=pdfium: PDFium gives the same pages and the same errors as pdfminer.six.

On the real files of the corpus (tests/corpus/), read in this process like test_extract,
plus the sandbox's child run with the extractor in its environment.
"""

import binascii
from pathlib import Path

import pytest

from search.pipeline.classify import classify_text, nonspace
from search.pipeline.errors import (
    Corrupt,
    Encrypted,
    NotAPdf,
    PermanentError,
    TooComplex,
    TooManyPages,
)
from search.pipeline.page import UNMAPPED_GLYPH, Page
from search.pipeline.reader import EXTRACTOR_ENV, read_pdf
from search.pipeline.sandbox.process import read_in_sandbox
from tests.factories import CORPUS, corpus_rows, make_pdf
from tests.search.handmade import deflate_bomb, pdf_with_content
from tests.search.test_corpus import ACCEPTED

# PDFium's one loss on the corpus: of this poem set vertically in Japanese it drops the
# lines it takes for overprinted copies of others (262 of pdfminer's 880 characters).
VERTICAL_JAPANESE = "pdfminer__pdfminer.six/samples/jo.pdf"
# The readers of the text layer alone: files that succeed only by OCR (their manifest note
# says "OCR only") end no_text here, as they did before OCR.
ROWS = [
    row | {"expect": "failed:no_text"} if row["note"].startswith("OCR only") else row
    for row in corpus_rows()
]
TEXT_ROWS = [row for row in ROWS if row["expect"] == "succeeded"]
SAME_TEXT_ROWS = [row for row in TEXT_ROWS if row["file"] != VERTICAL_JAPANESE]
OTHER_ROWS = [row for row in ROWS if row["expect"] != "succeeded"]
PDFMINER = CORPUS / "pdfminer__pdfminer.six/samples"
QPDF = CORPUS / "qpdf__qpdf/qpdf/qtest/qpdf"
SAMPLES = CORPUS / "py-pdf__sample-files"
GEOTOPO = "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"
# The measure of "the same text": non-space characters within 12 %.
CHARACTER_TOLERANCE = 0.12
MAX_PAGES = 2000


def read(path: Path, extractor: str | None, max_pages: int = MAX_PAGES) -> list[str]:
    with open(path, "rb") as fp:
        return read_pdf(fp, max_pages=max_pages, extractor=extractor)


def outcome(path: Path, extractor: str) -> str:
    """How extraction ends, as the worker sees it: an error code or "succeeded"."""
    try:
        texts = read(path, extractor)
        classify_text([Page(number, text) for number, text in enumerate(texts, start=1)])
    except PermanentError as exc:
        return exc.code
    return "succeeded"


def read_by_pdfium(texts: list[str]) -> bool:
    # pdfminer ends every page with a form feed; PDFium never does.
    return not any(text.endswith("\x0c") for text in texts)


@pytest.fixture(scope="module")
def text_files() -> dict[str, tuple[list[str], list[str]]]:
    """Each text file's pages, read by pdfminer and by PDFium."""
    return {
        row["file"]: (read(CORPUS / row["file"], "pdfminer"), read(CORPUS / row["file"], "pdfium"))
        for row in TEXT_ROWS
    }


def characters(texts: list[str]) -> int:
    return sum(nonspace(text) for text in texts)


@pytest.mark.parametrize("row", SAME_TEXT_ROWS, ids=[row["file"] for row in SAME_TEXT_ROWS])
def test_a_text_file_gives_as_many_pages_and_about_as_many_characters(row, text_files):
    by_pdfminer, by_pdfium = text_files[row["file"]]

    assert len(by_pdfium) == len(by_pdfminer)
    expected, got = characters(by_pdfminer), characters(by_pdfium)
    assert abs(got - expected) <= CHARACTER_TOLERANCE * expected, (got, expected)


def test_vertical_japanese_is_where_pdfium_loses_text_but_not_pages(text_files):
    by_pdfminer, by_pdfium = text_files[VERTICAL_JAPANESE]

    assert len(by_pdfium) == len(by_pdfminer)
    # Still a text document, read by PDFium itself; all the corpus together stays close.
    assert read_by_pdfium(by_pdfium)
    assert characters(by_pdfium) < (1 - CHARACTER_TOLERANCE) * characters(by_pdfminer)
    expected = sum(characters(by_pdfminer) for by_pdfminer, _ in text_files.values())
    got = sum(characters(by_pdfium) for _, by_pdfium in text_files.values())
    assert abs(got - expected) <= 0.01 * expected


def test_pdfium_reads_most_pages_itself(text_files):
    # Files with scant text (short notes, and what PDFium cannot open or map) go to
    # pdfminer; they must stay few, or this option would be pdfminer under another name.
    pages = sum(len(texts) for _, texts in text_files.values())
    by_pdfium = sum(len(texts) for _, texts in text_files.values() if read_by_pdfium(texts))
    assert by_pdfium >= 0.9 * pages


def test_glyphs_pdfium_cannot_map_are_written_as_pdfminer_writes_them(text_files):
    _, texts = text_files[GEOTOPO]
    assert read_by_pdfium(texts)
    assert UNMAPPED_GLYPH.search("".join(texts))


@pytest.mark.parametrize("row", OTHER_ROWS, ids=[row["file"] for row in OTHER_ROWS])
def test_a_file_that_fails_fails_with_the_same_code(row):
    path = CORPUS / row["file"]

    got = outcome(path, "pdfium")

    assert got == outcome(path, "pdfminer")
    # The PDF readers alone: a file of another type is no PDF to them.
    assert got in (ACCEPTED[row["expect"]] if "_as:" not in row["expect"] else {"not_a_pdf"})


def test_a_file_that_is_not_a_pdf_is_refused(tmp_path):
    path = tmp_path / "a.zip"
    path.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(NotAPdf):
        read(path, "pdfium")


def test_an_encrypted_pdf_is_encrypted():
    with pytest.raises(Encrypted):
        read(SAMPLES / "005-libreoffice-writer-password/libreoffice-writer-password.pdf", "pdfium")


def test_an_encrypted_pdf_that_opens_without_a_password_but_yields_nothing_is_encrypted():
    with pytest.raises(Encrypted):
        read(PDFMINER / "encryption/encrypted_doc_no_id.pdf", "pdfium")


def test_an_encrypted_pdf_that_opens_without_a_password_is_read_by_pdfium():
    texts = read(PDFMINER / "nonfree/dmca.pdf", "pdfium")
    assert read_by_pdfium(texts)
    assert "".join(texts).strip()


def test_a_page_tree_that_loops_is_corrupt():
    with pytest.raises(Corrupt, match="page tree reaches object 2 twice"):
        read(QPDF / "pages-loop.pdf", "pdfium")


def test_a_scan_has_no_text():
    assert outcome(SAMPLES / "007-imagemagick-images/imagemagick-images.pdf", "pdfium") == (
        "no_text"
    )


def test_too_many_pages_are_found_before_any_page_is_read(tmp_path):
    path = tmp_path / "three.pdf"
    path.write_bytes(make_pdf(pages=3, words_per_page=20))

    assert len(read(path, "pdfium", max_pages=3)) == 3
    with pytest.raises(TooManyPages, match="The PDF has 3 pages; the limit is 2"):
        read(path, "pdfium", max_pages=2)


def test_the_extractor_is_chosen_by_the_environment(monkeypatch, tmp_path):
    path = tmp_path / "one.pdf"
    path.write_bytes(make_pdf(pages=1, words_per_page=50))

    monkeypatch.setenv(EXTRACTOR_ENV, "pdfium")
    assert read_by_pdfium(read(path, None))
    monkeypatch.delenv(EXTRACTOR_ENV)
    assert not read_by_pdfium(read(path, None))


def test_the_sandbox_reads_with_pdfium_when_told_to(tmp_path):
    path = tmp_path / "two.pdf"
    path.write_bytes(make_pdf(pages=2, words_per_page=50))

    # 128 MB: the least INGEST_EXTRACT_MEMORY_MB allows, and PDFium's library fits.
    texts = read_in_sandbox(path, max_pages=10, timeout=60, memory_mb=128, extractor="pdfium")

    assert len(texts) == 2
    assert read_by_pdfium(texts)


def test_a_bomb_behind_another_filter_is_too_complex_not_a_crash(tmp_path):
    # PDFium aborts when the inflated stream passes the memory limit; the Flate check
    # before PDFium opens the file does not see through ASCIIHex.
    path = tmp_path / "hex-bomb.pdf"
    encoded = binascii.hexlify(deflate_bomb(gib=4)) + b">"
    path.write_bytes(pdf_with_content(encoded, filters=b"[/ASCIIHexDecode /FlateDecode]"))

    with pytest.raises(TooComplex):
        read_in_sandbox(path, max_pages=10, timeout=60, memory_mb=256, extractor="pdfium")


def test_a_decompression_bomb_is_too_complex_with_pdfium_too(tmp_path):
    path = tmp_path / "bomb.pdf"
    path.write_bytes(pdf_with_content(deflate_bomb(gib=4), filters=b"/FlateDecode"))

    with pytest.raises(TooComplex):
        read_in_sandbox(path, max_pages=10, timeout=60, memory_mb=256, extractor="pdfium")
