"""Read each page's text with pdfminer.six, and tell a damaged file from a sound one.

This parses untrusted bytes and bounds neither time nor memory: the service runs it only
inside the sandboxed child process (search/pipeline/sandbox/process.py). `read_pdf` is the entry
point: it reads with the extractor `INGEST_EXTRACTOR` names, pdfminer.six (here) by default
or PDFium (search/pipeline/reader_pdfium.py), which hands damaged and scant files back here.
"""

import itertools
import logging
import os
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO

from pdfminer.converter import TextConverter
from pdfminer.layout import LAParams
from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdfinterp import LITERAL_IMAGE, PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import PDFObjectNotFound, PDFObjRef, PDFStream, resolve1
from pdfminer.psexceptions import PSException

from search.pipeline.classify import is_scant, nonspace
from search.pipeline.errors import Corrupt, Encrypted, NotAPdf, TooManyPages
from search.pipeline.page import OnPages

if TYPE_CHECKING:
    from search.pipeline.layout.model import Ink

# Readers accept the header anywhere in the first kilobyte. A file that says "%PDF" there
# but not "%PDF-1.x" was meant to be a PDF and is damaged, not some other kind of file.
PDF_MARK = b"%PDF"
HEAD_BYTES = 1024

# pdfminer raises plain Python errors on some damaged files, not only its own
# (PSException is the base of all of those, PDFSyntaxError included).
DAMAGE = (
    PSException,
    ValueError,
    TypeError,
    IndexError,
    KeyError,
    AttributeError,
    AssertionError,
    RecursionError,
    ArithmeticError,
    zlib.error,
)

# These warn that a page box or a font metric was missing and a default was used: the text
# is unaffected. Every other pdfminer warning says it skipped or repaired damaged data.
HARMLESS_LOGGERS = frozenset({"pdfminer.pdfpage", "pdfminer.pdffont"})

# Damage kept per document, to quote in the error detail; the rest is only counted.
KEPT_WARNINGS = 3
MESSAGE_CHARS = 200

# A stream this large is not kept once read: pdfminer keeps every object it parses, so a
# file of large images would otherwise hold its whole size in memory by its last page.
KEPT_STREAM_BYTES = 1 << 18

# The sandboxed child loads no Django settings: it reads the choice (config/settings.py
# validates it in the worker) from the environment the worker passes down.
EXTRACTOR_ENV = "INGEST_EXTRACTOR"
EXTRACTORS = ("pdfminer", "pdfium")


def read_pdf(
    fp: BinaryIO,
    *,
    max_pages: int,
    extractor: str | None = None,
    on_pages: OnPages | None = None,
) -> list[str]:
    """The raw text of each page of the PDF in `fp`, in page order, read by `extractor`
    (default: the INGEST_EXTRACTOR environment variable, else pdfminer). `on_pages` hears
    of the pages read as the reader goes (page.OnPages).

    Both extractors raise the same errors for the same file: see read_with_pdfminer.
    """
    extractor = extractor or os.environ.get(EXTRACTOR_ENV, "").strip() or "pdfminer"
    if extractor == "pdfium":
        # Imported only when chosen: it loads PDFium's library.
        from search.pipeline.reader_pdfium import read_with_pdfium

        check_header(fp)
        return read_with_pdfium(
            fp, max_pages=max_pages, pdfminer=read_with_pdfminer, on_pages=on_pages
        )
    if extractor != "pdfminer":
        raise ValueError(
            f"{EXTRACTOR_ENV} must be one of {', '.join(EXTRACTORS)}, got {extractor!r}"
        )
    return read_with_pdfminer(fp, max_pages=max_pages, on_pages=on_pages)


def read_pdf_with_ink(
    fp: BinaryIO,
    *,
    max_pages: int,
    extractor: str | None = None,
    on_pages: OnPages | None = None,
) -> tuple[list[str], "list[Ink] | None"]:
    """As read_pdf, and each page's ink through PDFium (search/pipeline/layout/glyphs.py:
    its spans of text with their boxes, rules and images), for the document's structure:
    in the same pass when PDFium is the extractor, after pdfminer's otherwise. None when
    PDFium would not read the file (reader_pdfium.read_with_pdfium says when), or its
    text is scant."""
    from search.pipeline import reader_pdfium

    extractor = extractor or os.environ.get(EXTRACTOR_ENV, "").strip() or "pdfminer"
    if extractor == "pdfium":
        check_header(fp)
        return reader_pdfium.read_with_ink(
            fp, max_pages=max_pages, pdfminer=read_with_pdfminer, on_pages=on_pages
        )
    texts = read_pdf(fp, max_pages=max_pages, extractor=extractor, on_pages=on_pages)
    fp.seek(0)
    return texts, reader_pdfium.inks_of(fp, max_pages=max_pages, texts=texts)


def check_header(fp: BinaryIO) -> None:
    """Raise NotAPdf unless "%PDF" is in the first kilobyte; leaves `fp` at its start."""
    if PDF_MARK not in fp.read(HEAD_BYTES):
        raise NotAPdf("This file is not a PDF: no %PDF header in its first 1024 bytes.")
    fp.seek(0)


def read_with_pdfminer(
    fp: BinaryIO, *, max_pages: int, on_pages: OnPages | None = None
) -> list[str]:
    """The raw text of each page of the PDF in `fp`, in page order, read by pdfminer.six.

    Raises NotAPdf (no %PDF in the first kilobyte), Encrypted (needs a password, or
    decrypts to nothing), TooManyPages (more than `max_pages`, found before any page is
    read), or Corrupt (pdfminer cannot read it, or see _check_soundness). MemoryError
    propagates: bounding memory and time is the sandbox's job.
    """
    check_header(fp)
    with _DamageLog() as damage, _pdfminer_errors():
        document = _Document(PDFParser(fp))
        pages = _pages(document, max_pages)
        texts = _texts(pages, on_pages)
        _check_soundness(document, texts, damage)
    return texts


class _Document(PDFDocument):
    """pdfminer's document, keeping no stream over KEPT_STREAM_BYTES: read again when asked
    again, its memory goes with the page that used it."""

    def getobj(self, objid: int) -> object:
        obj = super().getobj(objid)
        if isinstance(obj, PDFStream) and len(obj.rawdata or b"") > KEPT_STREAM_BYTES:
            self._cached_objs.pop(objid, None)
        return obj


def _pages(document: PDFDocument, max_pages: int) -> list[PDFPage]:
    # Walking the page tree is cheap; reading pages is not. Count first, read after.
    pages = list(itertools.islice(PDFPage.create_pages(document), max_pages + 1))
    if len(pages) > max_pages:
        declared = _declared_page_count(document)
        count = str(declared) if declared and declared > max_pages else f"more than {max_pages}"
        raise TooManyPages(f"The PDF has {count} pages; the limit is {max_pages}.")
    return pages


def _declared_page_count(document: PDFDocument) -> int | None:
    try:
        count = resolve1(resolve1(document.catalog["Pages"])["Count"])
    except DAMAGE:
        return None
    return count if isinstance(count, int) else None


def _texts(pages: list[PDFPage], on_pages: OnPages | None = None) -> list[str]:
    manager = PDFResourceManager()
    buffer = StringIO()
    device = TextConverter(manager, buffer, laparams=LAParams())
    interpreter = PDFPageInterpreter(manager, device)
    texts: list[str] = []
    if on_pages is not None:
        on_pages(0, len(pages))
    try:
        for page in pages:
            interpreter.process_page(page)
            texts.append(buffer.getvalue())
            buffer.seek(0)
            buffer.truncate()
            if on_pages is not None:
                on_pages(len(texts), len(pages))
    finally:
        device.close()
    return texts


def _check_soundness(document: PDFDocument, texts: list[str], damage: "_Damage") -> None:
    """Raise Corrupt or Encrypted for a file that opened but is not really readable.

    In order: no pages at all is Corrupt. Encrypted (an /Encrypt entry in the trailer)
    with no text on any page is Encrypted. Scant text (under a line per page, see
    classify.LINE) with any damage found is Corrupt: a warning pdfminer logged while
    reading, or a problem `_structural_problems` finds. Plenty of text is kept even
    from a damaged file: what was recovered is worth indexing.
    """
    if not texts:
        raise Corrupt("The PDF is damaged: it has no pages.")
    if document.encryption and not any(nonspace(text) for text in texts):
        # The empty password was accepted, yet nothing readable came out: the key
        # derived from it is wrong (e.g. the file lacks the /ID it was encrypted with).
        raise Encrypted("The PDF is encrypted and cannot be read without a password.")
    if is_scant(texts):
        # Little text: a scan, a short note, or a damaged file. Only damage makes it
        # corrupt, and the check costs a pass over every object, so only here.
        for problem in _structural_problems(document):
            damage.add(problem)
        if damage.count:
            raise Corrupt(f"The PDF is damaged and little of its text can be read: {damage}.")


def _structural_problems(document: PDFDocument) -> Iterator[str]:
    """What `qpdf --check` would find: a page tree that loops, objects or non-image
    streams that cannot be decoded. Warnings pdfminer logs meanwhile go to the damage log.

    An object the cross-reference table lists but that is not there counts as null, as
    the PDF standard says, and is no damage: some writers leave such entries behind.
    """
    yield from _page_tree_problems(document)
    for objid in _object_ids(document):
        try:
            obj = document.getobj(objid)
            # Image data carries no text; pdfminer does not decode it to read text either.
            if isinstance(obj, PDFStream) and resolve1(obj.get("Subtype")) is not LITERAL_IMAGE:
                obj.get_data()
        except PDFObjectNotFound:
            continue
        except DAMAGE as exc:
            yield f"object {objid} cannot be read ({type(exc).__name__})"


def _object_ids(document: PDFDocument) -> list[int]:
    return sorted({objid for xref in document.xrefs for objid in xref.get_objids()})


def _page_tree_problems(document: PDFDocument) -> Iterator[str]:
    # pdfminer silently skips a page tree node it has seen: a loop or a node with two
    # parents, both invalid. Walked with a stack: a deep tree must not recurse.
    seen: set[int] = set()
    stack: list[Any] = [document.catalog.get("Pages")]
    try:
        while stack:
            node = stack.pop()
            if isinstance(node, PDFObjRef):
                if node.objid in seen:
                    yield f"the page tree reaches object {node.objid} twice"
                    return
                seen.add(node.objid)
            node = resolve1(node)
            kids = resolve1(node.get("Kids")) if isinstance(node, dict) else None
            if isinstance(kids, list):
                stack.extend(kids)
    except DAMAGE as exc:
        yield f"the page tree cannot be read ({type(exc).__name__})"


@contextmanager
def _pdfminer_errors() -> Iterator[None]:
    """Turn what pdfminer raises on bad input into our permanent errors."""
    try:
        yield
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise Encrypted("The PDF is encrypted and needs a password.") from exc
    except DAMAGE as exc:
        reason = f"{type(exc).__name__}: {exc}"[:MESSAGE_CHARS]
        raise Corrupt(f"The PDF is damaged and cannot be read ({reason}).") from exc


class _Damage:
    """What was found wrong with one document: a few messages and a count."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.count = 0

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.messages) < KEPT_WARNINGS:
            self.messages.append(message)

    def __str__(self) -> str:
        more = self.count - len(self.messages)
        return "; ".join(self.messages) + (f" (and {more} more)" if more else "")


class _DamageLog(logging.Handler):
    """Collects pdfminer's warnings about damaged data while one document is read.

    Only this thread's records count, so documents read in other threads do not mix in.
    Sees nothing if logging is configured to drop pdfminer's warnings; the sandboxed
    child leaves that configuration at its default.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.damage = _Damage()
        self._thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self._thread and record.name not in HARMLESS_LOGGERS:
            self.damage.add(record.getMessage()[:MESSAGE_CHARS])

    def __enter__(self) -> _Damage:
        logging.getLogger("pdfminer").addHandler(self)
        return self.damage

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        logging.getLogger("pdfminer").removeHandler(self)
