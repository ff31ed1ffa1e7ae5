"""An e-mail's attachments become documents of their own only where the front door would
take them as uploads (documents/services/processing.py, add_attachments)."""

import pytest
from django.test import override_settings

from documents.models import Document
from documents.services.processing import add_attachments
from search.pipeline.page import Attachment
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db


def attached(name: str, data: bytes) -> Attachment:
    return Attachment(filename=name, media_type="application/octet-stream", data=data)


@override_settings(INGEST_MAX_TEXT_BYTES=1000)
def test_only_what_an_upload_could_be_is_made_a_document(alice):
    message = make_document(alice, filename="lease.eml", file_type="eml")
    attachments = [
        attached("notes.md", b"# Notes\n\nThe deposit is returned within thirty days.\n"),
        attached("minutes.txt", b"The meeting ran long. " * 100),  # text past its limit
        attached("scan.pdf", b"just words, named like a PDF"),  # text misnamed
        attached("x.gif", b"GIF89a" + b"\0" * 50),  # a type not read
        attached("empty.png", b""),
        attached("lease.pdf", make_pdf()),
    ]

    made = add_attachments(document_id=message.id, version=message.version, attachments=attachments)

    children = Document.objects.filter(parent_id=message.id)
    assert sorted(children.values_list("filename", "file_type")) == [
        ("lease.pdf", "pdf"),
        ("notes.md", "markdown"),
    ]
    assert made == 2
    # Again, as a retried job would: nothing twice.
    assert (
        add_attachments(document_id=message.id, version=message.version, attachments=attachments)
        == 0
    )
    assert children.count() == 2
