"""The document page's viewer: a page of the version search serves, drawn by the service
(GET /api/documents/{id}/pages/{n}.png), with a search result's passage outlined on it.

`/documents/{id}/?page=N&chunk=<chunk id>` opens it at page N with the chunk's boxes
outlined; `?page=N` alone shows the page; `?chunk=` alone opens it at the chunk's first
page. The outline is an SVG laid over the image whose viewBox is the page's size in
points, so a box in points (search.models.Chunk.boxes: [page, x0, y0, x1, y1] from the
shown page's top-left corner) is a <rect> with those numbers as they are: it scales with
the image at any width, and needs no style attribute, which the page's
Content-Security-Policy refuses.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import reverse

from documents import content as contents
from documents import pages
from documents.models import Document
from search.models import Chunk, DocumentPage

# The widths the page's <img> offers (srcset): the browser takes the one its layout and
# screen need; each is drawn once and kept.
WIDTHS = (600, 1000, 1600)
SHOWN = 1000  # the <img>'s src, and the width its height is given for
PAD = 1.5  # points around each box: an outline, not a box drawn through the letters


@dataclass(frozen=True)
class Outline:
    """A box of the passage on the shown page, in points from its top-left corner."""

    x: float
    y: float
    width: float
    height: float


@dataclass
class Viewer:
    document_id: uuid.UUID
    page: int
    pages: int | None  # in the version; None when not known
    version: int
    size: tuple[float, float] | None  # the page's width and height in points, as shown
    outlines: list[Outline] = field(default_factory=list)
    elsewhere: list[int] = field(default_factory=list)  # other pages the passage is on
    stale: int | None = None  # the passage's version, when it is not the one shown
    query: dict[str, str] = field(default_factory=dict)  # chunk= and q=, kept when paging

    def image(self, width: int = SHOWN) -> str:
        url = reverse("document-page-image", kwargs={"pk": self.document_id, "n": self.page})
        return f"{url}?{urlencode({'width': width, 'version': self.version})}"

    @property
    def srcset(self) -> str:
        return ", ".join(f"{self.image(width)} {width}w" for width in WIDTHS)

    @property
    def height(self) -> int | None:
        """The <img>'s height at SHOWN pixels wide, so the page holds its place."""
        return round(SHOWN * self.size[1] / self.size[0]) if self.size else None

    @property
    def view_box(self) -> str:
        return f"0 0 {self.size[0]:g} {self.size[1]:g}" if self.size else ""

    def link(self, page: int) -> str:
        return "?" + urlencode({"page": page, **self.query}) + "#viewer"

    @property
    def elsewhere_links(self) -> list[tuple[int, str]]:
        return [(page, self.link(page)) for page in self.elsewhere]

    @property
    def previous(self) -> str:
        return self.link(self.page - 1) if self.page > 1 else ""

    @property
    def next(self) -> str:
        return self.link(self.page + 1) if self.pages is None or self.page < self.pages else ""


def view(document: Document, asked: QueryDict) -> Viewer | None:
    """The viewer for the page's query (`page`, `chunk`, `q`), or None when it asks for
    none, or no version is ready to show."""
    chunk = passage_chunk(document, asked.get("chunk"))
    page = _number(asked.get("page")) or (chunk.page if chunk else None)
    if page is None:
        return None
    try:
        found = contents.Content(document, *contents.served(document, None))
    except (contents.NotReady, contents.Replaced):
        return None
    if not found.kind.drawn:
        return None  # a file whose pages are not drawn shows its passage in its text
    count = pages.page_count(found)
    page = max(1, min(page, count or page))
    size = (
        DocumentPage.objects.filter(document_id=document.id, version=found.version, number=page)
        .values_list("width", "height")
        .first()
    )
    viewer = Viewer(document.id, page, count, found.version, size)
    if chunk is not None:
        q = asked.get("q") or ""
        viewer.query = {"chunk": str(chunk.id), **({"q": q} if q else {})}
        if chunk.version != found.version:
            viewer.stale = chunk.version
        else:
            _outline(viewer, chunk)
    return viewer


def _outline(viewer: Viewer, chunk: Chunk) -> None:
    on_pages = sorted({box[0] for box in chunk.boxes} or {chunk.page})
    viewer.elsewhere = [page for page in on_pages if page != viewer.page]
    viewer.outlines = [
        Outline(x0 - PAD, y0 - PAD, x1 - x0 + 2 * PAD, y1 - y0 + 2 * PAD)
        for page, x0, y0, x1, y1 in chunk.boxes
        if page == viewer.page and x1 > x0 and y1 > y0
    ]


def passage_chunk(document: Document, wanted: str | None) -> Chunk | None:
    """The chunk a link opened the page at (`chunk=`), when it is one of the document's."""
    try:
        chunk_id = uuid.UUID(str(wanted))
    except ValueError:
        return None
    return Chunk.objects.filter(id=chunk_id, document=document).defer("embedding").first()


def _number(raw: str | None) -> int | None:
    try:
        return int(raw) if raw else None
    except ValueError:
        return None
