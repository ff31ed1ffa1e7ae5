import io

import pytest

from search.pipeline.clean import clean_text
from search.pipeline.errors import Corrupt, Encrypted, NotAPdf
from search.pipeline.extract import extract_pages
from tests.factories import CORPUS, make_pdf


def test_pages_come_out_numbered_with_their_text():
    pages = list(extract_pages(io.BytesIO(make_pdf(pages=3, words_per_page=20))))

    assert [page.number for page in pages] == [1, 2, 3]
    assert all(clean_text(page.text).startswith(f"Page {page.number}.") for page in pages)


def test_a_file_that_is_not_a_pdf_is_refused():
    with pytest.raises(NotAPdf):
        list(extract_pages(io.BytesIO(b"PK\x03\x04 a zip file")))


def test_an_encrypted_pdf_is_reported_as_such():
    path = (
        CORPUS
        / "py-pdf__sample-files/005-libreoffice-writer-password/libreoffice-writer-password.pdf"
    )
    with open(path, "rb") as fp, pytest.raises(Encrypted):
        list(extract_pages(fp))


def test_a_truncated_pdf_is_reported_as_corrupt():
    content = make_pdf(pages=2)
    with pytest.raises(Corrupt):
        list(extract_pages(io.BytesIO(content[: len(content) // 3])))
