"""E-mail messages (search/pipeline/formats/mail.py)."""

from email.message import EmailMessage

from search.pipeline.formats.mail import MAX_ATTACHMENTS
from tests.search.formats.files import kinds, read


def message() -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = "Alice <alice@example.com>"
    mail["To"] = "Bob <bob@example.com>"
    mail["Cc"] = "charlie@example.com"
    mail["Subject"] = "Quarterly r\xe9sum\xe9"
    mail["Date"] = "Tue, 04 Mar 2025 10:15:00 +0100"
    mail["Message-ID"] = "<abc123@example.com>"
    mail.set_content("Hello Bob,\n\nThe numbers\nare in.\n")
    mail.add_alternative("<p>Hello <b>Bob</b></p>", subtype="html")
    return mail


def test_the_subject_is_the_title_and_the_plain_body_is_read():
    reading = read(message().as_bytes(), "eml")

    assert kinds(reading) == [
        ("title", "Quarterly r\xe9sum\xe9"),
        ("paragraph", "Hello Bob,"),
        ("paragraph", "The numbers are in."),
    ]
    assert reading.structure.paged is False


def test_the_metadata_says_who_when_and_what():
    metadata = read(message().as_bytes(), "eml").metadata

    assert metadata == {
        "from": "Alice <alice@example.com>",
        "to": "Bob <bob@example.com>",
        "cc": "charlie@example.com",
        "subject": "Quarterly r\xe9sum\xe9",
        "date": "2025-03-04T10:15:00+01:00",
        "message_id": "abc123@example.com",
    }


def test_an_html_only_body_is_read_as_a_page():
    mail = EmailMessage()
    mail["Subject"] = "Hi"
    mail.set_content("<h2>News</h2><p>Body text</p>", subtype="html")

    assert kinds(read(mail.as_bytes(), "eml")) == [
        ("title", "Hi"),
        ("heading", "News"),
        ("paragraph", "Body text"),
    ]


def test_attachments_come_back_with_their_names_and_bytes():
    mail = message()
    mail.add_attachment(
        b"%PDF-1.4 fake", maintype="application", subtype="pdf", filename="report.pdf"
    )
    forwarded = EmailMessage()
    forwarded["Subject"] = "Old news"
    forwarded.set_content("forwarded body")
    mail.add_attachment(forwarded)

    attachments = read(mail.as_bytes(), "eml").attachments

    assert [(a.filename, a.media_type) for a in attachments] == [
        ("report.pdf", "application/pdf"),
        ("Old news.eml", "message/rfc822"),
    ]
    assert attachments[0].data == b"%PDF-1.4 fake"
    assert b"forwarded body" in attachments[1].data


def test_past_the_limit_attachments_are_counted_not_kept():
    mail = message()
    for n in range(MAX_ATTACHMENTS + 3):
        mail.add_attachment(b"x", maintype="text", subtype="plain", filename=f"f{n}.txt")

    reading = read(mail.as_bytes(), "eml")

    assert len(reading.attachments) == MAX_ATTACHMENTS
    assert reading.metadata["attachments_dropped"] == "3"


def test_a_date_no_parser_reads_is_left_out():
    raw = b"From: a@example.com\r\nSubject: x\r\nDate: not a date\r\n\r\nbody\r\n"

    reading = read(raw, "eml")

    assert "date" not in reading.metadata
    assert kinds(reading) == [("title", "x"), ("paragraph", "body")]
