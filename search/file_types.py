"""The types of file the service reads, told from their first bytes: never from the name
or the type a client declares.

A leaf both halves use: the front door (documents/front_door) decides on the bytes as
they stream in whether a file is taken, and the sandboxed reader
(search/pipeline/sandbox) picks its reader by the same table, from the stored bytes.

The signatures are our own small table: each is a prefix the format's specification
puts at the start of every file. ZIP files are told apart by their first entries (Office
Open XML and OpenDocument files are ZIP archives); e-mail, HTML, Markdown and plain text
by decoding the first kilobyte.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass

# How much of a file's start is looked at: enough for a ZIP's first entries' names.
HEAD_BYTES = 4096
# A PDF's header, which may follow some junk: pdfminer looks this far for it too.
PDF_MAGIC = b"%PDF-"
PDF_MAGIC_WINDOW = 1024


@dataclass(frozen=True)
class FileType:
    code: str  # "pdf", "docx": what the API shows as a document's `type`
    media_type: str
    extension: str  # the stored file's, with its dot
    said: str  # completes "it looks like ..."
    paged: bool  # has pages a person sees (a PDF, an image, slides), with boxes on them
    ocr: bool = False  # an image: its text is read by OCR, on the OCR lane

    @property
    def drawn(self) -> bool:
        """Whether its pages can be drawn as images (a PDF's, an image's own): slides have
        pages and boxes, but no drawing of them here."""
        return self.code == "pdf" or self.ocr


PDF = FileType("pdf", "application/pdf", ".pdf", "a PDF", paged=True)
PNG = FileType("png", "image/png", ".png", "a PNG image", paged=True, ocr=True)
JPEG = FileType("jpeg", "image/jpeg", ".jpg", "a JPEG image", paged=True, ocr=True)
TIFF = FileType("tiff", "image/tiff", ".tif", "a TIFF image", paged=True, ocr=True)
WEBP = FileType("webp", "image/webp", ".webp", "a WebP image", paged=True, ocr=True)
DOCX = FileType(
    "docx",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".docx",
    "a Word document (.docx)",
    paged=False,
)
PPTX = FileType(
    "pptx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".pptx",
    "a PowerPoint presentation (.pptx)",
    paged=True,
)
XLSX = FileType(
    "xlsx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".xlsx",
    "an Excel spreadsheet (.xlsx)",
    paged=False,
)
ODT = FileType(
    "odt",
    "application/vnd.oasis.opendocument.text",
    ".odt",
    "an OpenDocument text (.odt)",
    paged=False,
)
ODP = FileType(
    "odp",
    "application/vnd.oasis.opendocument.presentation",
    ".odp",
    "an OpenDocument presentation (.odp)",
    paged=True,
)
ODS = FileType(
    "ods",
    "application/vnd.oasis.opendocument.spreadsheet",
    ".ods",
    "an OpenDocument spreadsheet (.ods)",
    paged=False,
)
HTML = FileType("html", "text/html", ".html", "an HTML page", paged=False)
MARKDOWN = FileType("markdown", "text/markdown", ".md", "Markdown", paged=False)
TEXT = FileType("text", "text/plain", ".txt", "plain text", paged=False)
EML = FileType("eml", "message/rfc822", ".eml", "an e-mail message (.eml)", paged=False)

TYPES = (PDF, PNG, JPEG, TIFF, WEBP, DOCX, PPTX, XLSX, ODT, ODP, ODS, HTML, MARKDOWN, TEXT, EML)
BY_CODE = {t.code: t for t in TYPES}
_OTHER_EXTENSIONS = {".jpeg": JPEG, ".tiff": TIFF, ".htm": HTML, ".markdown": MARKDOWN}
BY_EXTENSION = {t.extension: t for t in TYPES} | _OTHER_EXTENSIONS


# What a file chooser offers (an <input type=file>'s accept): every type's media type and
# extensions. The bytes still decide.
ACCEPT = ",".join([t.media_type for t in TYPES] + sorted(BY_EXTENSION))
# Types a text file is taken for by its bytes alone, with no signature.
_TEXT_ONLY = (MARKDOWN, TEXT)
_SIGNED = frozenset(t for t in TYPES if t not in (HTML, MARKDOWN, TEXT, EML))


def by_name(name: str) -> FileType | None:
    """The type `name`'s extension is one of (a storage key's, or a sent file name), or
    None. Only ever a hint: the bytes decide a file's type."""
    last = name.rsplit("/", 1)[-1]
    return BY_EXTENSION.get(last[last.rfind(".") :].lower()) if "." in last else None


def mislabelled(found: FileType, name: str) -> bool:
    """Whether a file whose bytes say `found` is text named as a binary type (`report.pdf`
    holding only words): damaged or mislabelled, not a text document. The front door
    refuses it; a reader takes it for what its name says, and finds it is not."""
    named = by_name(name)
    return found in _TEXT_ONLY and named is not None and named in _SIGNED


def of_stored(key: str, known: str) -> FileType:
    """The type of the file stored at `key`, by the extension its type gave the key, or
    `known` (a type's code) for a key without one (a direct upload's, named before its
    bytes were seen)."""
    return by_name(key) or BY_CODE[known]


@dataclass(frozen=True)
class Unsupported:
    """A file the service does not read: what it looks like ("a GIF image", or None when
    nothing fits), and whether it is an older Office format that a newer one replaces."""

    said: str | None
    legacy: bool = False


# Prefixes of files read by no reader: named in the refusal, never taken.
_UNSUPPORTED = [
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"{\\rtf", "an RTF document"),
    (b"%!PS", "a PostScript file"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"BM", "a BMP image"),
    (b"\x00\x00\x01\x00", "an icon"),
    (b"ID3", "an MP3 file"),
    (b"OggS", "an Ogg file"),
    (b"fLaC", "a FLAC file"),
    (b"\x7fELF", "a program"),
    (b"MZ", "a Windows program"),
]
# OLE2 compound files: Word, Excel and PowerPoint before 2007.
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
# An OpenDocument file starts with an uncompressed entry "mimetype" holding its type.
_OPENDOCUMENT = {
    b"application/vnd.oasis.opendocument.text": ODT,
    b"application/vnd.oasis.opendocument.spreadsheet": ODS,
    b"application/vnd.oasis.opendocument.presentation": ODP,
}
_OPENDOCUMENT_OTHER = {b"application/epub+zip": "an EPUB e-book"}
# Office Open XML: the folder of the first entry that shows. Word, Excel and PowerPoint
# write [Content_Types].xml and _rels/ first, then their own folder.
_OFFICE_OPEN_XML = {b"word/": DOCX, b"xl/": XLSX, b"ppt/": PPTX}

_BOM = rb"(?:\xef\xbb\xbf)?"
_HTML = re.compile(
    _BOM + rb"\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title)\b",
    re.IGNORECASE | re.DOTALL,
)
_XML = re.compile(_BOM + rb"\s*<\?xml\b")
_XHTML = re.compile(rb"<html\b[^>]*xmlns=[\"']http://www\.w3\.org/1999/xhtml", re.IGNORECASE)
_SVG = re.compile(rb"<svg\b")
# An e-mail's header: field names of RFC 5322, one to a line, before a blank line. A file
# is taken for a message when it starts with headers and has at least two of these.
_HEADER_LINE = re.compile(rb"^[!-9;-~]+:[ \t]?", re.MULTILINE)
_MAIL_FIELDS = re.compile(
    rb"^(?:from|to|cc|date|subject|message-id|mime-version|received|return-path|"
    rb"delivered-to|reply-to|x-[a-z0-9-]+):",
    re.IGNORECASE | re.MULTILINE,
)
# Markdown: one of the marks that plain text rarely starts a line with.
_MARKDOWN = re.compile(
    rb"^(?:#{1,6}[ \t]+\S|```|~~~|[-*+][ \t]+\S.*\n[-*+][ \t]+\S|\d+\.[ \t]+\S.*\n\d+\.[ \t]|"
    rb"\|.*\|[ \t]*\n\|?[ \t]*:?-{3,}|.+\n(?:=+|-+)[ \t]*$)",
    re.MULTILINE,
)
_LINK = re.compile(rb"\[[^\]\n]+\]\([^)\s]+\)")
# Text: anything but the control characters no text file holds (tab, newlines, form feed
# and escape are fine).
_BINARY_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")


def detect(head: bytes, *, name: str = "") -> FileType | Unsupported:
    """The type of the file that starts with `head` (its first HEAD_BYTES, or all of a
    shorter file), or Unsupported saying what it looks like. `name` is consulted only
    between Markdown and plain text, which the bytes cannot always tell apart: a ".md"
    file with no Markdown mark in its start is still Markdown."""
    if PDF_MAGIC in head[:PDF_MAGIC_WINDOW]:
        return PDF
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if head.startswith(b"\xff\xd8\xff"):
        return JPEG
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return TIFF
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return WEBP
    if head.startswith(_OLE2):
        return Unsupported("an older Microsoft Office document (.doc, .xls or .ppt)", legacy=True)
    for magic, said in _UNSUPPORTED:
        if head.startswith(magic):
            return Unsupported(said)
    if head.startswith(_ZIP):
        return _zip_type(head)
    return _text_type(head, name)


def _zip_type(head: bytes) -> FileType | Unsupported:
    mimetype = _mimetype_entry(head)
    if mimetype in _OPENDOCUMENT:
        return _OPENDOCUMENT[mimetype]
    if mimetype in _OPENDOCUMENT_OTHER:
        return Unsupported(_OPENDOCUMENT_OTHER[mimetype])
    positions = [(head.find(folder), found) for folder, found in _OFFICE_OPEN_XML.items()]
    named = [(at, found) for at, found in positions if at >= 0]
    if named:
        return min(named, key=lambda pair: pair[0])[1]
    if b"[Content_Types].xml" in head:
        return Unsupported("a Microsoft Office document of a kind not read here")
    return Unsupported("a ZIP archive")


_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # a ZIP entry's header, before its name


def _mimetype_entry(head: bytes) -> bytes:
    """The text of an OpenDocument file's "mimetype" entry, if it starts in `head`. The
    specification puts it first, stored; some writers put it later, give it an extra
    field, or compress it."""
    at = head.find(b"PK\x03\x04")
    while 0 <= at <= len(head) - _LOCAL_HEADER.size:
        fields = _LOCAL_HEADER.unpack_from(head, at)
        method, name_length, extra_length = fields[3], fields[9], fields[10]
        name_at = at + _LOCAL_HEADER.size
        data_at = name_at + name_length + extra_length
        if head[name_at : name_at + name_length] == b"mimetype":
            data = head[data_at : data_at + 200]
            if method == 8:  # deflated
                try:
                    data = zlib.decompressobj(-15).decompress(data, 200)
                except zlib.error:
                    return b""
            return data.split(b"PK\x03\x04")[0].strip()
        at = head.find(b"PK\x03\x04", at + 4)
    return b""


def _text_type(head: bytes, name: str) -> FileType | Unsupported:
    if _HTML.match(head) or (_XML.match(head) and _XHTML.search(head)):
        return HTML
    if _XML.match(head):
        return Unsupported("an SVG image" if _SVG.search(head) else "an XML file")
    if not _is_text(head):
        return Unsupported(None)
    if _is_mail(head):
        return EML
    if by_name(name) is MARKDOWN or _looks_like_markdown(head):
        return MARKDOWN
    return TEXT


def _is_mail(head: bytes) -> bool:
    header, blank, _ = head.replace(b"\r\n", b"\n").partition(b"\n\n")
    if not blank and len(head) >= HEAD_BYTES:
        blank = b"\n\n"  # a long header, cut by the window
    if not blank:
        return False
    lines = [line for line in header.split(b"\n") if line and line[:1] not in b" \t"]
    if not lines or not all(_HEADER_LINE.match(line) for line in lines):
        return False
    return len(_MAIL_FIELDS.findall(header)) >= 2


def _looks_like_markdown(head: bytes) -> bool:
    return bool(_MARKDOWN.search(head)) or len(_LINK.findall(head)) >= 2


def _is_text(head: bytes) -> bool:
    """Text in UTF-8, or (failing that) a single-byte or UTF-16 encoding with no control
    characters: charset detection proper is the reader's (search/pipeline/formats)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = head[: len(head) // 2 * 2].decode("utf-16")
        except UnicodeDecodeError:
            return False
        return bool(text.strip()) and not _BINARY_CONTROLS.search(text)
    # The window may end inside a multi-byte character: drop up to three bytes of it.
    for cut in range(4):
        try:
            text = head[: len(head) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return bool(text.strip()) and not _BINARY_CONTROLS.search(text)
    # Latin-1 and its kin: every byte decodes; refuse only control characters and NULs.
    text = head.decode("latin-1")
    return bool(text.strip()) and not _BINARY_CONTROLS.search(text)
