"""A file's type is told from its first bytes (search/file_types.py): the types read are
taken, whatever their name; any other is refused `unsupported_type`, saying what it looks
like, an older Office file `legacy_office_format`, and a file named .pdf that is not one
`not_a_pdf`."""

import gzip
import io
import zipfile

import pytest
from PIL import Image

from documents.models import Document
from search import file_types
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
    ("content", "name", "code"),
    [
        (image("PNG"), "scan.png", "png"),
        (image("JPEG"), "photo.jpg", "jpeg"),
        (image("TIFF"), "fax.tif", "tiff"),
        (image("WEBP"), "shot.webp", "webp"),
        (docx(), "report.docx", "docx"),
        (xlsx(), "figures.xlsx", "xlsx"),
        (odt(), "letter.odt", "odt"),
        (b"<!DOCTYPE html>\n<html><body>Hi</body></html>", "page.html", "html"),
        (b"<!-- saved -->\n<html lang=en><head><title>t</title>", "saved", "html"),
        (b"# Notes\n\nSome *words*.\n", "notes.txt", "markdown"),
        (b"Plain words, no marks.\n" * 20, "notes.md", "markdown"),
        ("Grüße, a note\n".encode() * 100, "note.txt", "text"),
        ("Grüße, a note\n".encode("latin-1") * 100, "note.txt", "text"),
        ("A note\n".encode("utf-16"), "note.txt", "text"),
        (b"From: a@example.com\nTo: b@example.com\nSubject: Hi\n\nBody\n", "m.eml", "eml"),
        (b"Received: from x\n by y; Mon\nFrom: a@b.c\nDate: Mon\n\nhi", "m", "eml"),
        (b"%PDF-1.7\n", "named-wrong.docx", "pdf"),
    ],
)
def test_a_type_read_here_is_told_from_its_bytes_whatever_its_name(content, name, code):
    found = file_types.detect(content[: file_types.HEAD_BYTES], name=name)

    assert isinstance(found, file_types.FileType)
    assert found.code == code


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (image("GIF"), "a GIF image"),
        (zip_of_notes(), "a ZIP archive"),
        (b"{\\rtf1\\ansi Hello}", "an RTF document"),
        (b"%!PS-Adobe-3.0\n", "a PostScript file"),
        (gzip.compress(b"a" * 100, mtime=0), "a gzip-compressed file"),
        (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', "an SVG image"),
        (b"\x00\x13\x37\xfe binary soup" * 50, None),
        (b"   \n\t  ", None),
    ],
)
def test_any_other_type_is_named_when_its_bytes_tell(content, said):
    found = file_types.detect(content)

    assert found == file_types.Unsupported(said)


def test_an_older_office_file_is_told_apart_as_legacy():
    found = file_types.detect(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 500)

    assert found == file_types.Unsupported(found.said, legacy=True)


def test_text_cut_inside_a_character_by_the_window_is_still_text():
    head = ("é" * 600).encode()[:1023]  # ends on half a character

    assert file_types.detect(head) == file_types.TEXT


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("content", "name", "code", "detail"),
    [
        (image("GIF"), "anim.gif", "unsupported_type", "This type of file is not read (it looks "
         "like a GIF image). The service reads PDF, images (PNG, JPEG, TIFF, WebP)"),
        (zip_of_notes(), "notes.zip", "unsupported_type", "(it looks like a ZIP archive)"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 500, "old.doc",
         "legacy_office_format", "save it as .docx, .xlsx or .pptx (or as a PDF)"),
        (b"\x00\x13\x37 binary soup" * 200, "blob.pdf", "not_a_pdf",
         "The file is not a PDF: no %PDF- header in its first 1024 bytes."),
        (b"just notes\n" * 200, "notes.pdf", "not_a_pdf",
         "Its name says PDF, but it is not one (it looks like plain text"),
        (b"just notes\n" * 200, "notes.docx", "unsupported_type",
         "The file is named .docx but holds only text"),
    ],
)  # fmt: skip
def test_the_upload_api_refuses_what_it_cannot_read_saying_what_it_saw(
    alice_client, broker, content, name, code, detail
):
    response = alice_client.post(
        "/api/documents/", {"file": [pdf_upload(content, name)]}, format="multipart"
    )

    assert response.status_code == 415
    [result] = response.json()["results"]
    assert result["error"]["code"] == code
    assert detail in result["error"]["detail"]
    assert not Document.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("content", "name", "file_type", "extension", "lane"),
    [
        (image("PNG"), "scan.pdf", "png", ".png", "ocr"),
        (docx(), "report", "docx", ".docx", "fast"),
        (b"# Minutes\n\nWe met.\n", "minutes.md", "markdown", ".md", "fast"),
    ],
)
def test_a_file_of_another_type_is_taken_and_stored_as_what_its_bytes_say(
    alice_client, broker, content, name, file_type, extension, lane
):
    response = alice_client.post(
        "/api/documents/", {"file": [pdf_upload(content, name)]}, format="multipart"
    )

    assert response.status_code == 202, response.json()
    document = Document.objects.get()
    assert document.file_type == file_type
    assert document.storage_key.endswith(f"/v1{extension}")
    assert document.current_job.lane == lane
