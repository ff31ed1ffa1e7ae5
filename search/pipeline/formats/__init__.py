"""Readers of the files that are not PDFs (issue 47): Office Open XML and OpenDocument
files, web pages, Markdown, plain text and e-mail, each read into the document model the
PDF reader gives (search/pipeline/layout/model.py), so chunks, citations and the content
API treat them alike.

Pure functions of a file's bytes: no Django, no database. They run in the sandboxed
reader child, so a bad file ends in one of the pipeline's errors (Corrupt, TooComplex,
TooManyPages), and MemoryError goes up untouched for the sandbox to answer.

Slides (pptx, odp) are pages with boxes; every other type is pageless: one notional page
of size 0 x 0 with every block on it (Structure.paged is False), and one text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO

from search.pipeline.errors import TooComplex
from search.pipeline.formats import html, mail, markdown, opendocument, sheets, slides, text, word
from search.pipeline.formats.reading import Attachment, FormatReading, damaged_as
from search.pipeline.page import OnPages

__all__ = ["CODES", "Attachment", "FormatReading", "read_file"]

# Readers that take the whole file's bytes and have no pages to count.
_WHOLE: dict[str, tuple[Callable[[bytes], FormatReading], str]] = {
    "html": (html.read_html, "web page"),
    "markdown": (markdown.read_markdown, "Markdown file"),
    "text": (text.read_text, "text file"),
    "eml": (mail.read_mail, "e-mail message"),
}
# Readers of ZIP-based files, which count their own pages (slides, sheets).
_PACKAGED: dict[str, Callable[..., FormatReading]] = {
    "docx": word.read_docx,
    "pptx": slides.read_pptx,
    "xlsx": sheets.read_xlsx,
    "odt": opendocument.read_odt,
    "odp": opendocument.read_odp,
    "ods": opendocument.read_ods,
}
CODES = frozenset(_WHOLE) | frozenset(_PACKAGED)


def read_file(
    fp: BinaryIO, code: str, *, max_pages: int, on_pages: OnPages | None = None
) -> FormatReading:
    """The reading of the file in `fp`, of the type `code` (search/file_types.py).

    `max_pages` bounds slides and sheets (TooManyPages, before any is read). `on_pages`
    hears (0, total) once the count is known, then (done, total) after each slide or
    sheet; a pageless file counts as one page: (0, 1), then (1, 1).

    Raises Corrupt for a file its library cannot parse, TooComplex for one too large or
    too deeply nested to read (a decompression bomb among them), and ValueError for a
    type code no reader here reads (the caller's mistake)."""
    told = on_pages or _nobody
    try:
        if code in _WHOLE:
            reader, said = _WHOLE[code]
            told(0, 1)
            with damaged_as(said):
                found = reader(fp.read())
            told(1, 1)
            return found
        if code in _PACKAGED:
            return _PACKAGED[code](fp, max_pages=max_pages, on_pages=told)
    except RecursionError:
        raise TooComplex(
            "This file is nested too deeply to read (elements inside elements, thousands "
            "of levels down)."
        ) from None
    raise ValueError(f"no reader for files of type {code!r}")


def _nobody(done: int, total: int) -> None:
    pass
