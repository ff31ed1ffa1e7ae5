"""What a file that is not a PDF looks like, told from its first bytes, so that a refusal
can say "it looks like a Word document" instead of naming a header the sender never
heard of.

A small table of signatures, our own: each is a prefix (at an offset) that the format's
specification puts at the start of every file. ZIP files are told apart by the names of
their first entries (Office Open XML and OpenDocument files are ZIP archives); text by
decoding. Only the first kilobyte is ever looked at (documents.front_door.validation keeps
that much), and a guess is only ever used in wording: the refusal's code stays `not_a_pdf`.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Signature(NamedTuple):
    magic: bytes
    kind: str  # completes "it looks like ..."
    offset: int = 0


SIGNATURES = [
    Signature(b"\x89PNG\r\n\x1a\n", "a PNG image"),
    Signature(b"\xff\xd8\xff", "a JPEG image"),
    Signature(b"GIF87a", "a GIF image"),
    Signature(b"GIF89a", "a GIF image"),
    Signature(b"II*\x00", "a TIFF image"),
    Signature(b"MM\x00*", "a TIFF image"),
    Signature(b"WEBP", "a WebP image", offset=8),
    # OLE2 compound files: Word, Excel and PowerPoint before 2007 (.doc, .xls, .ppt).
    Signature(
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an older Microsoft Office document (.doc, .xls, .ppt)"
    ),
    Signature(b"{\\rtf", "an RTF document"),
    Signature(b"%!PS", "a PostScript file"),
    Signature(b"\x1f\x8b", "a gzip-compressed file"),
    Signature(b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    Signature(b"Rar!\x1a\x07", "a RAR archive"),
]

# An OpenDocument file starts with an uncompressed entry "mimetype" holding its type.
_OPENDOCUMENT = {
    b"application/vnd.oasis.opendocument.text": "an OpenDocument text (.odt)",
    b"application/vnd.oasis.opendocument.spreadsheet": "an OpenDocument spreadsheet (.ods)",
    b"application/vnd.oasis.opendocument.presentation": "an OpenDocument presentation (.odp)",
    b"application/epub+zip": "an EPUB e-book",
}
# Office Open XML: the folder of the first entries that show. Word, Excel and PowerPoint
# write [Content_Types].xml and _rels/ first, then their own folder.
_OFFICE_OPEN_XML = {
    b"word/": "a Word document (.docx)",
    b"xl/": "an Excel spreadsheet (.xlsx)",
    b"ppt/": "a PowerPoint presentation (.pptx)",
}
TEXT = "plain text"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_HTML = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<(?:!doctype\s+html|html|head|body)\b", re.IGNORECASE)
_XML = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<\?xml\b")
_SVG = re.compile(rb"<svg\b")
# Text: anything but the control characters no text file holds (tab, newlines, form feed
# and escape are fine).
_BINARY_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")


def guess(head: bytes) -> str | None:
    """What the file that starts with `head` looks like ("a PNG image"), or None when
    none of the signatures fits."""
    for signature in SIGNATURES:
        if head[signature.offset :].startswith(signature.magic):
            if signature.magic == b"WEBP" and not head.startswith(b"RIFF"):
                continue
            return signature.kind
    if head.startswith(_ZIP_MAGIC):
        return _zip_kind(head)
    if _HTML.match(head):
        return "an HTML page"
    if _XML.match(head):
        return "an SVG image" if _SVG.search(head) else "an XML file"
    if _is_text(head):
        return TEXT
    return None


def _zip_kind(head: bytes) -> str:
    for mimetype, kind in _OPENDOCUMENT.items():
        if b"mimetype" + mimetype in head[:200]:
            return kind
    positions = {kind: head.find(folder) for folder, kind in _OFFICE_OPEN_XML.items()}
    named = [(at, kind) for kind, at in positions.items() if at >= 0]
    if named:
        return min(named)[1]
    if b"[Content_Types].xml" in head:
        return "a Microsoft Office document (.docx, .xlsx or .pptx)"
    return "a ZIP archive"


def _is_text(head: bytes) -> bool:
    # The window may end inside a multi-byte character: drop up to three bytes of it.
    for cut in range(4):
        try:
            text = head[: len(head) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return bool(text.strip()) and not _BINARY_CONTROLS.search(text)
    return False
