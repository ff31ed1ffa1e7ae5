"""Read each page's text with PDFium (pypdfium2): the `INGEST_EXTRACTOR=pdfium` option.

The same contract as the pdfminer reader (search/pipeline/reader.py): one raw text per page,
in page order, and the same errors for the same files. Like it, this parses untrusted bytes
unbounded: it runs only inside the sandboxed child (search/pipeline/sandbox/process.py).

PDFium is many times faster, but it repairs damaged files silently and says nothing of what
it skipped, so it cannot apply the pdfminer reader's damage rules. Those rules only decide
anything for a file that PDFium cannot open or that carries scant text (under a line per
page: a scan, a short note, or a damaged file), so such a file goes to the pdfminer reader,
whose pages or error are the answer. A scan costs pdfminer little: neither reader decodes
its images.
"""

import ctypes
import re
import resource
import zlib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import pypdfium2  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from search.pipeline.classify import is_scant
from search.pipeline.errors import TooManyPages
from search.pipeline.layout.glyphs import read_ink
from search.pipeline.layout.model import Ink
from search.pipeline.page import OnPages
from search.pipeline.reopened import Reopened

# The highest code point `chr` accepts; PDFium hands back whatever a broken font maps to.
MAX_CODE_POINT = 0x10FFFF
# Forms (XObjects) nested deeper than this are taken for a content stream that calls itself,
# which pdfminer refuses to run and counts as damage. PDFium runs it again and again, up to
# 40 levels deep, and its text repeats as many times.
MAX_FORM_DEPTH = 24


# PDFium aborts the process when an allocation fails, where pdfminer raises MemoryError (the
# sandbox's `too_complex`). A stream that inflates past this share of the address space is
# left to pdfminer, which reads it within its memory or fails the way the sandbox expects.
INFLATE_SHARE = 4
INFLATE_STEP = 1 << 20
# The start of a stream's data ("endstream" also ends in "stream"; this is not it).
STREAM = re.compile(rb"(?<!end)stream\r?\n")
# The file is scanned for streams a block at a time, each block with the last bytes of the
# one before, so that a keyword cut by a block's end is found whole.
SCAN_BLOCK = 8 << 20
CARRIED = len(b"endstream\r\n")


class _Damaged(Exception):
    """PDFium read something the pdfminer reader would count as damage."""


def read_with_pdfium(
    fp: BinaryIO,
    *,
    max_pages: int,
    pdfminer: Callable[..., list[str]],
    on_pages: OnPages | None = None,
) -> list[str]:
    """The raw text of each page of the PDF in `fp` (its header checked by the caller), in order.

    Raises what `pdfminer` (the pdfminer reader, reader.read_with_pdfminer) raises for the
    same file: TooManyPages (PDFium's page count, before any page is read), and whatever
    `pdfminer` says of a file PDFium cannot open or whose text is scant. `on_pages` hears
    of the pages read (page.OnPages); a file handed to `pdfminer` is counted again from 0.
    """
    texts, _ = _read(fp, max_pages, on_pages, inks=False)
    if not texts or is_scant(texts):
        fp.seek(0)
        return pdfminer(fp, max_pages=max_pages, on_pages=on_pages)
    return texts


def read_with_ink(
    fp: BinaryIO,
    *,
    max_pages: int,
    pdfminer: Callable[..., list[str]],
    on_pages: OnPages | None = None,
) -> tuple[list[str], list[Ink] | None]:
    """As read_with_pdfium, and each page's ink (search/pipeline/layout/glyphs.py) read
    in the same pass: None for a file handed to `pdfminer`."""
    texts, inks = _read(fp, max_pages, on_pages, inks=True)
    if not texts or is_scant(texts):
        fp.seek(0)
        return pdfminer(fp, max_pages=max_pages, on_pages=on_pages), None
    return texts, inks


def inks_of(fp: BinaryIO, *, max_pages: int, texts: list[str]) -> list[Ink] | None:
    """Each page's ink of a file another reader has read (`texts`, its pages): None
    where PDFium would not read it (see read_with_pdfium), or its text is scant."""
    if is_scant(texts):
        return None
    read, inks = _read(fp, max_pages, None, inks=True)
    return inks if read and len(read) == len(texts) else None


def _read(
    fp: BinaryIO, max_pages: int, on_pages: OnPages | None, *, inks: bool
) -> tuple[list[str], list[Ink]]:
    """Each page's text and, with `inks`, its ink; ([], []) when PDFium should not or
    cannot read the file (its streams inflate too far, it cannot open it or a page, or a
    page's forms nest too deep)."""
    if _inflates_too_far(fp):
        return [], []
    fp.seek(0)
    try:
        pdf = Reopened(fp)
    except pypdfium2.PdfiumError:
        return [], []
    try:
        count = len(pdf)
        if count > max_pages:
            raise TooManyPages(f"The PDF has {count} pages; the limit is {max_pages}.")
        texts: list[str] = []
        read: list[Ink] = []
        for index in range(count):
            if on_pages is not None:
                on_pages(index, count)
            text, ink = _page(pdf, index, inks=inks)
            texts.append(text)
            if ink is not None:
                read.append(ink)
        if on_pages is not None:
            on_pages(count, count)
        return texts, read
    except (pypdfium2.PdfiumError, _Damaged):
        return [], []
    finally:
        pdf.close()


def _page(pdf: Any, index: int, *, inks: bool) -> tuple[str, Ink | None]:
    page = pdf[index]
    try:
        _check_forms(page.raw)
        textpage = page.get_textpage()
        try:
            text = _text(textpage).replace("\r\n", "\n")
            return text, read_ink(page, textpage) if inks else None
        finally:
            textpage.close()
    finally:
        page.close()


def _text(textpage: Any) -> str:
    """The page's text, each glyph PDFium could not map written "(cid:N)" as pdfminer does.

    PDFium puts the glyph's code in the text instead, which looks like text but is not:
    written like pdfminer's, the classifier and the cleaner discount it the same way.
    """
    raw = textpage.raw
    count = pdfium_c.FPDFText_CountChars(raw)
    if count <= 0:  # -1: PDFium could not read the page's text, which leaves it blank
        return ""
    has_error = pdfium_c.FPDFText_HasUnicodeMapError
    unmapped = {index for index in range(count) if has_error(raw, index) == 1}
    if not unmapped:
        return str(textpage.get_text_range())
    return "".join(_char(raw, index, index in unmapped) for index in range(count))


def _char(raw: ctypes.c_void_p, index: int, unmapped: bool) -> str:
    code = pdfium_c.FPDFText_GetUnicode(raw, index)
    if unmapped or code > MAX_CODE_POINT:
        return f"(cid:{code})"
    return chr(code)


def _check_forms(page: ctypes.c_void_p) -> None:
    """Raise _Damaged when the page's forms nest deeper than MAX_FORM_DEPTH.

    Depth first: a form that calls itself is found before its copies are all walked.
    """
    count, get = pdfium_c.FPDFPage_CountObjects, pdfium_c.FPDFPage_GetObject
    stack = [(get(page, index), 1) for index in range(count(page))]
    while stack:
        obj, depth = stack.pop()
        if pdfium_c.FPDFPageObj_GetType(obj) != pdfium_c.FPDF_PAGEOBJ_FORM:
            continue
        if depth > MAX_FORM_DEPTH:
            raise _Damaged
        inner = pdfium_c.FPDFFormObj_CountObjects(obj)
        stack.extend((pdfium_c.FPDFFormObj_GetObject(obj, i), depth + 1) for i in range(inner))


def _inflates_too_far(fp: BinaryIO) -> bool:
    """True when a Flate stream of the file inflates past 1/INFLATE_SHARE of this process's
    address space (the sandbox's limit; no limit, no check), measured without keeping it.

    Found by scanning the file a block at a time: one pass of zlib, without parsing the
    file. Other filters (LZW, ...) are not checked: PDFium's failed allocation there ends
    the sandbox with a signal, which the sandbox reports as `extractor_crashed`.
    """
    limit, _ = resource.getrlimit(resource.RLIMIT_AS)
    if limit == resource.RLIM_INFINITY:
        return False
    budget = limit // INFLATE_SHARE
    starts = list(_stream_starts(fp))  # found first: measuring moves the file's position
    return any(_inflated_size(fp, start, budget) > budget for start in starts)


def _stream_starts(fp: BinaryIO) -> Iterator[int]:
    """The offset of each stream's data in the file, read in blocks of SCAN_BLOCK."""
    fp.seek(0)
    offset, carried = 0, b""
    while block := fp.read(SCAN_BLOCK):
        window = carried + block
        base = offset - len(carried)
        # A match must end inside this block's new bytes: one wholly in the carried
        # tail was found with the block before.
        for match in STREAM.finditer(window):
            if match.end() > len(carried):
                yield base + match.end()
        offset += len(block)
        carried = window[-CARRIED:]


def _inflated_size(fp: BinaryIO, start: int, budget: int) -> int:
    """How far the Flate data at `start` inflates, counted up to just past `budget`; 0 for
    data that is not Flate (or is encrypted)."""
    inflater = zlib.decompressobj()
    fp.seek(start)
    size, pending = 0, b""
    try:
        while size <= budget and not inflater.eof:
            pending = pending or fp.read(INFLATE_STEP)
            if not pending:
                break
            size += len(inflater.decompress(pending, INFLATE_STEP))
            pending = inflater.unconsumed_tail
    except zlib.error:
        return 0
    return size
