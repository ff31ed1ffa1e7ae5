"""Any file name gets a clean answer: never a 5xx, the file accepted under a sane name.

Each upload here is a real multipart body of more than 2.5 MiB, so the upload handler
spools it to a temporary file on disk (past FILE_UPLOAD_MAX_MEMORY_SIZE): a temporary
file whose name once took its suffix from the sent name, and a 300-character extension
made `OSError: File name too long` a 500.
"""

import pytest
from django.conf import settings

from documents.models import Document
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

BOUNDARY = "odd-names-boundary"


def big_pdf() -> bytes:
    """A valid PDF padded past FILE_UPLOAD_MAX_MEMORY_SIZE (2.5 MiB), so it goes to disk."""
    pdf = make_pdf(1, words_per_page=20)
    padding = settings.FILE_UPLOAD_MAX_MEMORY_SIZE + 64 * 1024
    return pdf + b"\n%" + b"x" * padding + b"\n"


def multipart(disposition: bytes, content: bytes) -> bytes:
    """One `file` part with the Content-Disposition parameters given as raw bytes, as a
    client may send them (Django's test client would encode the name for us)."""
    return (
        b"--" + BOUNDARY.encode() + b"\r\n"
        b'Content-Disposition: form-data; name="file"; ' + disposition + b"\r\n"
        b"Content-Type: application/pdf\r\n\r\n" + content + b"\r\n"
        b"--" + BOUNDARY.encode() + b"--\r\n"
    )


def upload(client, disposition: bytes, content: bytes):
    return client.generic(
        "POST",
        "/api/documents/",
        multipart(disposition, content),
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
    )


LONG_EXTENSION = "report." + "x" * 300
WIDE_EXTENSION = "report." + "é" * 300  # 600 bytes in UTF-8


@pytest.mark.parametrize(
    ("disposition", "expected"),
    [
        pytest.param(f'filename="{LONG_EXTENSION}"'.encode(), LONG_EXTENSION[:200], id="long-ext"),
        pytest.param(f'filename="{WIDE_EXTENSION}"'.encode(), WIDE_EXTENSION[:200], id="wide-ext"),
        pytest.param(f'filename="{"a" * 800}.pdf"'.encode(), "a" * 196 + ".pdf", id="long-name"),
        pytest.param(b'filename="bad\x00name\x01.pdf"', "badname.pdf", id="nul-control"),
        pytest.param(b'filename="..."', "upload.pdf", id="only-dots"),
        pytest.param(b'filename="...."', "upload.pdf", id="four-dots"),
        pytest.param(b'filename=".pdf"', "pdf", id="dot-pdf"),
        pytest.param(
            b"filename*=UTF-8''%ED%A0%80%F0%9F%93%84%20lone%20surrogate.pdf",
            None,
            id="bad-utf8-rfc2231",
        ),
        pytest.param(
            'filename="\U0001f4c4 r\u00e9sum\u00e9 \u202e.pdf"'.encode(), None, id="emoji-bidi"
        ),
        pytest.param(b'filename="dir/../../etc/passwd"', "passwd", id="path"),
    ],
)
def test_an_odd_name_gets_a_clean_answer_and_a_sane_display_name(
    alice_client, broker, disposition, expected
):
    content = big_pdf()
    response = upload(alice_client, disposition, content)

    assert response.status_code < 500, response.content[:500]
    assert response.status_code == 202, response.json()
    [result] = response.json()["results"]
    document = Document.objects.get(id=result["document_id"])
    name = document.filename
    assert result["filename"] == name
    assert document.size == len(content)
    assert 0 < len(name) <= 200
    assert not {"\x00", "/", "\\"} & set(name)
    assert all(ch.isprintable() for ch in name), repr(name)
    name.encode("utf-8")  # no lone surrogates: it was stored in Postgres and shown
    if expected is not None:
        assert name == expected


@pytest.mark.parametrize(
    "disposition",
    [
        # Django's multipart parser reads at most 1 KiB of a part's headers, and decodes
        # them as UTF-8: past that, or in Latin-1, it cannot even see a file part.
        pytest.param(f'filename="{"a" * 1100}.pdf"'.encode(), id="name-over-1-kib"),
        pytest.param(b'filename="caf\xe9 \xff\xfe.pdf"', id="latin-1-bytes"),
        pytest.param(b'filename=".."', id="dot-dot"),
    ],
)
def test_a_name_the_multipart_parser_cannot_use_is_a_clean_400(alice_client, broker, disposition):
    response = upload(alice_client, disposition, big_pdf())

    assert response.status_code == 400, response.content[:500]
    assert response.json()["code"] in {"parse_error", "no_file"}
    assert not Document.objects.exists()
