"""E-mail messages (.eml), parsed by the standard library's `email` with its modern policy.

The subject is the title; the body is the plain-text part if there is one (read as plain
text is), else the HTML part (read as a web page is). The metadata: from, to, cc, date
(ISO 8601), subject and message_id, those the message has. Every other part that is an
attachment (said so, or inline with a file name) is handed back with its decoded bytes;
a forwarded message (message/rfc822) as a .eml file of its own, never opened here. At
most MAX_ATTACHMENTS: the rest are counted in the metadata's `attachments_dropped`.
"""

from __future__ import annotations

import email
import re
from email import policy
from email.message import EmailMessage, Message

from search.pipeline.formats.encoding import decode
from search.pipeline.formats.html import html_blocks
from search.pipeline.formats.reading import Attachment, Blocks, FormatReading, clean, pageless
from search.pipeline.formats.text import text_blocks
from search.pipeline.layout.model import TITLE

MAX_ATTACHMENTS = 100
_HEADERS = ("from", "to", "cc", "subject")
_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f/\\]")


def read_mail(data: bytes) -> FormatReading:
    message = email.message_from_bytes(data, policy=policy.default)
    assert isinstance(message, EmailMessage)  # what policy.default makes
    body = message.get_body(preferencelist=("plain", "html"))
    blocks = Blocks()
    blocks.add(TITLE, str(_header(message, "subject") or ""))
    if body is not None:
        blocks.extend(_body_blocks(body))
    metadata = _metadata(message)
    attachments, dropped = _attachments(message, body)
    if dropped:
        metadata["attachments_dropped"] = str(dropped)
    return pageless(blocks, metadata=metadata, attachments=attachments)


def _body_blocks(part: Message) -> Blocks:
    try:
        text = part.get_content()  # type: ignore[attr-defined]  # an EmailMessage's part
    except (LookupError, UnicodeError):  # a charset Python does not know: guess it
        text = None
    if not isinstance(text, str):
        payload = part.get_payload(decode=True)
        text = decode(payload if isinstance(payload, bytes) else b"")
    if part.get_content_subtype() == "html":
        return html_blocks(text)
    return text_blocks(text)


def _metadata(message: EmailMessage) -> dict[str, str]:
    found = {}
    for name in _HEADERS:
        value = clean(str(_header(message, name) or ""))
        if value:
            found[name] = value
    when = getattr(_header(message, "date"), "datetime", None)
    if when is not None:
        found["date"] = when.isoformat()
    message_id = clean(str(_header(message, "message-id") or "")).strip("<>")
    if message_id:
        found["message_id"] = message_id
    return found


def _header(message: Message, name: str) -> object:
    """A header's value, or None where it is missing or too malformed to parse (a date
    no parser reads raises on access: the message is still worth reading)."""
    try:
        return message.get(name)
    except (ValueError, TypeError, IndexError, AttributeError):
        return None


def _attachments(message: Message, body: Message | None) -> tuple[list[Attachment], int]:
    found: list[Attachment] = []
    dropped = 0
    for part in _leaves(message):
        if part is body:
            continue
        attachment = _attachment(part, len(found) + dropped + 1)
        if attachment is None:
            continue
        if len(found) < MAX_ATTACHMENTS:
            found.append(attachment)
        else:
            dropped += 1
    return found, dropped


def _leaves(part: Message) -> list[Message]:
    """The parts that are not containers, in order, a forwarded message as one leaf."""
    if part.is_multipart() and part.get_content_type() != "message/rfc822":
        payload = part.get_payload()
        inner = payload if isinstance(payload, list) else []
        return [leaf for each in inner if isinstance(each, Message) for leaf in _leaves(each)]
    return [part]


def _attachment(part: Message, number: int) -> Attachment | None:
    name = _safe_name(part.get_filename() or "")
    if part.get_content_type() == "message/rfc822":
        inner = part.get_payload()
        forwarded = inner[0] if isinstance(inner, list) and inner else None
        forwarded = forwarded if isinstance(forwarded, Message) else None
        data = forwarded.as_bytes() if forwarded is not None else b""
        name = name or _safe_name(str(_header(forwarded, "subject") or "") if forwarded else "")
        name = name or f"message-{number}"
        name = name if name.lower().endswith(".eml") else name + ".eml"
        return Attachment(name, "message/rfc822", data)
    disposition = part.get_content_disposition()
    if disposition != "attachment" and not (disposition == "inline" and name):
        return None
    payload = part.get_payload(decode=True)
    return Attachment(
        name or f"attachment-{number}",
        part.get_content_type(),
        payload if isinstance(payload, bytes) else b"",
    )


def _safe_name(name: str) -> str:
    """A file name with no folder in it and nothing unprintable."""
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    return clean(_UNSAFE_NAME.sub("", name))[:255]
