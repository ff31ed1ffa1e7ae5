"""The reading rules, in this process through extract_pages (test_sandbox covers the child)."""

import io
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from search.pipeline.clean import clean_text
from search.pipeline.errors import Corrupt, Encrypted, NotAPdf
from search.pipeline.page import Page
from search.pipeline.reader import read_pdf
from tests.factories import CORPUS, make_pdf

PDFMINER = CORPUS / "pdfminer__pdfminer.six/samples"
QPDF = CORPUS / "qpdf__qpdf/qpdf/qtest/qpdf"

# Enough for any test document: nothing here applies INGEST_MAX_PAGES.
UNBOUNDED_PAGES = 1_000_000


def extract_pages(fp: BinaryIO) -> Iterator[Page]:
    """Each page's raw text, read in this process with no bound on time or memory: the
    same rules and errors as extract_document, less Timeout, TooComplex and
    extractor_crashed."""
    texts = read_pdf(fp, max_pages=UNBOUNDED_PAGES)
    yield from (Page(number, text) for number, text in enumerate(texts, start=1))


def read(path: Path) -> list[str]:
    with open(path, "rb") as fp:
        return [page.text for page in extract_pages(fp)]


def test_pages_come_out_numbered_with_their_text():
    pages = list(extract_pages(io.BytesIO(make_pdf(pages=3, words_per_page=20))))

    assert [page.number for page in pages] == [1, 2, 3]
    assert all(clean_text(page.text).startswith(f"Page {page.number}.") for page in pages)


def test_a_file_that_is_not_a_pdf_is_refused():
    with pytest.raises(NotAPdf):
        list(extract_pages(io.BytesIO(b"PK\x03\x04 a zip file")))


def test_a_mangled_pdf_header_is_corrupt_not_another_kind_of_file():
    with pytest.raises(Corrupt):
        read(QPDF / "issue-263.pdf")  # starts "%PDFn"


def test_an_encrypted_pdf_is_reported_as_such():
    path = (
        CORPUS
        / "py-pdf__sample-files/005-libreoffice-writer-password/libreoffice-writer-password.pdf"
    )
    with pytest.raises(Encrypted):
        read(path)


def test_an_encrypted_pdf_that_opens_without_a_password_but_yields_nothing_is_encrypted():
    with pytest.raises(Encrypted):
        read(PDFMINER / "encryption/encrypted_doc_no_id.pdf")


def test_an_encrypted_pdf_that_opens_without_a_password_is_read():
    assert "".join(read(PDFMINER / "nonfree/kampo.pdf")).strip()


def test_a_truncated_pdf_is_reported_as_corrupt():
    content = make_pdf(pages=2)
    with pytest.raises(Corrupt):
        list(extract_pages(io.BytesIO(content[: len(content) // 3])))


def test_a_pdf_without_pages_is_corrupt():
    with pytest.raises(Corrupt, match="no pages"):
        read(PDFMINER / "nonfree/175.pdf")


def test_a_page_tree_that_loops_is_corrupt():
    with pytest.raises(Corrupt, match="page tree reaches object 2 twice"):
        read(QPDF / "pages-loop.pdf")


def test_a_stream_that_cannot_be_decoded_is_corrupt_when_little_text_came_out():
    with pytest.raises(Corrupt, match="object 5 cannot be read"):
        read(QPDF / "damaged-stream.pdf")


def test_a_content_stream_that_calls_itself_is_corrupt_when_little_text_came_out():
    with pytest.raises(Corrupt, match="circular reference"):
        read(PDFMINER / "contrib/issue-1113-evil-xobjects.pdf")


def test_damage_that_still_leaves_plenty_of_text_is_read():
    # pdfminer warns "Data-loss while decompressing corrupted data" and recovers the text.
    text = "".join(read(PDFMINER / "zen_of_python_corrupted.pdf"))

    assert "Beautiful is better than ugly." in text


def test_a_short_sound_document_is_read_even_with_dangling_cross_references():
    # Some writers list objects at offset 0; a reference to one is null, not damage.
    assert "Arial font" in "".join(read(PDFMINER / "font-size-test.pdf"))
