"""A file that is not a PDF is refused with what it looks like, when its first bytes tell;
the code stays `not_a_pdf` whatever the wording."""

import gzip
import io
import zipfile

import pytest
from PIL import Image

from documents.front_door import file_kinds
from documents.models import Document
from tests.conftest import pdf_upload

CONTENT_TYPES = b"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml"
 ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>"""
RELS = b"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Target="word/document.xml"
 Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"/>
</Relationships>"""
DOCUMENT = b"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:body><w:p><w:r><w:t>Quarterly report</w:t></w:r></w:p></w:body></w:document>"""


def docx() -> bytes:
    """A Word document, its parts in the order Word writes them."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", RELS)
        archive.writestr("word/document.xml", DOCUMENT)
    return out.getvalue()


def xlsx() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES.replace(b"word/", b"xl/"))
        archive.writestr("_rels/.rels", RELS.replace(b"word/document", b"xl/workbook"))
        archive.writestr("xl/workbook.xml", b"<workbook/>")
    return out.getvalue()


def odt() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(
            zipfile.ZipInfo("mimetype"),
            "application/vnd.oasis.opendocument.text",
            compress_type=zipfile.ZIP_STORED,
        )
        archive.writestr("content.xml", b"<office:document-content/>")
    return out.getvalue()


def zip_of_notes() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("notes.txt", b"notes")
    return out.getvalue()


def image(form: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 30, 30)).save(out, form)
    return out.getvalue()


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (image("PNG"), "a PNG image"),
        (image("JPEG"), "a JPEG image"),
        (image("GIF"), "a GIF image"),
        (image("TIFF"), "a TIFF image"),
        (image("WEBP"), "a WebP image"),
        (docx(), "a Word document (.docx)"),
        (xlsx(), "an Excel spreadsheet (.xlsx)"),
        (odt(), "an OpenDocument text (.odt)"),
        (zip_of_notes(), "a ZIP archive"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 500, "an older Microsoft Office"),
        (b"<!DOCTYPE html>\n<html><body>Hi</body></html>", "an HTML page"),
        (b"{\\rtf1\\ansi Hello}", "an RTF document"),
        (b"%!PS-Adobe-3.0\n", "a PostScript file"),
        (gzip.compress(b"a" * 100, mtime=0), "a gzip-compressed file"),
        ("Grüße, a note\n".encode() * 100, "plain text"),
    ],
)
def test_it_tells_a_file_type_from_its_first_kilobyte(content, kind):
    assert (file_kinds.guess(content[:1024]) or "").startswith(kind)


@pytest.mark.parametrize(
    "content", [b"\x00\x13\x37\xfe binary soup" * 50, b"   \n\t  ", b"\xff\xfe\xfd"]
)
def test_it_guesses_nothing_for_bytes_no_signature_fits(content):
    assert file_kinds.guess(content) is None


def test_text_cut_inside_a_character_by_the_window_is_still_text():
    head = ("é" * 600).encode()[:1023]  # ends on half a character

    assert file_kinds.guess(head) == "plain text"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("content", "name", "looks_like"),
    [
        (image("PNG"), "scan.png", "a PNG image"),
        (docx(), "report.docx", "a Word document (.docx)"),
    ],
)
def test_the_upload_api_says_what_the_refused_file_looks_like(
    alice_client, broker, content, name, looks_like
):
    response = alice_client.post(
        "/api/documents/", {"file": [pdf_upload(content, name)]}, format="multipart"
    )

    assert response.status_code == 415
    [result] = response.json()["results"]
    assert result["error"] == {
        "code": "not_a_pdf",
        "detail": f"This is not a PDF (it looks like {looks_like}). Only PDFs are read: "
        "save or export it as a PDF and send that.",
    }
    assert not Document.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_file_nothing_is_known_of_keeps_the_header_wording(alice_client, broker):
    response = alice_client.post(
        "/api/documents/",
        {"file": [pdf_upload(b"\x00\x13\x37 binary soup" * 200, "blob.pdf")]},
        format="multipart",
    )

    [result] = response.json()["results"]
    assert result["error"] == {
        "code": "not_a_pdf",
        "detail": "The file is not a PDF: no %PDF- header in its first 1024 bytes.",
    }
