"""Web pages, parsed by lxml's HTML parser (libxml2: it loads no DTD, resolves no external
entity and fetches nothing; no_network and huge_tree=False say so again).

What is not the page's text goes first: scripts, styles, form controls (a form's own
text stays: old pages wrap their whole content in one), navigation, asides, elements
whose role is navigation, banner or contentinfo, and the page's header and footer (an
article's own stay). Then, if the page has a <main>, or else exactly one
<article>, only that is read. h1 to h6 are headings of levels 1 to 6; the <title> is
the title when the part read has no h1; text in p, div and the like is a paragraph; li a
list item; a table keeps its cells (th as header cells, colspan and rowspan as spans);
pre keeps its line breaks; figcaption and a table's caption are captions.

The encoding: a byte order mark, else what the page declares in a <meta>, else a guess
(search/pipeline/formats/encoding.py).
"""

from __future__ import annotations

import re

import lxml.html  # type: ignore[import-untyped]
from lxml import etree

from search.pipeline.formats.encoding import decode
from search.pipeline.formats.reading import Blocks, FormatReading, clean, pageless
from search.pipeline.layout.model import (
    CAPTION,
    HEADING,
    LIST_ITEM,
    PARAGRAPH,
    TITLE,
    Cell,
)

_DROPPED_TAGS = (
    "script style noscript template svg iframe nav aside object embed canvas math "
    "select button textarea datalist"
)
_DROPPED = frozenset(_DROPPED_TAGS.split())
_DROPPED_ROLES = frozenset(("navigation", "banner", "contentinfo"))
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
# The tags that hold text inside a line: any other starts a block of its own.
_INLINE_TAGS = (
    "a abbr b bdi bdo big br cite code data del dfn em font i img ins kbd label mark nobr q "
    "s samp small span strike strong sub sup time tt u var wbr"
)
_INLINE = frozenset(_INLINE_TAGS.split())
# What a container's own text is, where it is not what its parent's is.
_KIND = {"li": LIST_ITEM, "figcaption": CAPTION, "caption": CAPTION, "ul": PARAGRAPH}
_KIND |= {"ol": PARAGRAPH, "dl": PARAGRAPH}
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*\?>")
MAX_SPAN = 1000  # columns or rows one cell may span (HTML's own bound on colspan)


def read_html(data: bytes) -> FormatReading:
    declared = _META_CHARSET.search(data[:4096])
    text = decode(data, declared=declared.group(1).decode("ascii") if declared else None)
    return pageless(html_blocks(text))


def html_blocks(text: str) -> Blocks:
    """The blocks of a page's text (an e-mail's HTML body too)."""
    text = _XML_DECLARATION.sub("", text.replace("\x00", ""))
    if not text.strip():
        return Blocks()
    parser = lxml.html.HTMLParser(
        no_network=True, huge_tree=False, remove_comments=True, remove_pis=True
    )
    try:
        page = lxml.html.document_fromstring(text, parser=parser)
    except etree.ParserError:  # "Document is empty": nothing but markup that holds no text
        return Blocks()
    title = clean(page.findtext(".//title") or "")
    _drop_what_is_not_text(page)
    for br in page.iter("br"):
        br.tail = "\n" + (br.tail or "")
    root = _part_read(page)
    walker = _Walker()
    if title and next(root.iter("h1"), None) is None:
        walker.blocks.add(TITLE, title)
    walker.container(root)
    return walker.blocks


def _drop_what_is_not_text(page: lxml.html.HtmlElement) -> None:
    dropped = []
    for element in page.iter():
        if not isinstance(element.tag, str):
            continue
        if (
            element.tag in _DROPPED
            or element.get("role", "").strip() in _DROPPED_ROLES
            or (
                element.tag in ("header", "footer")
                and not any(above.tag == "article" for above in element.iterancestors())
            )
        ):
            dropped.append(element)
    for element in dropped:
        if element.getparent() is not None:
            element.drop_tree()


def _part_read(page: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    main = next(iter(page.xpath("//main | //*[@role='main']")), None)
    if main is not None:
        return main
    articles = page.xpath("//article")
    if len(articles) == 1:
        return articles[0]
    body = page.find("body")
    return body if body is not None else page


class _Walker:
    """Blocks from elements in document order; text met between blocks is gathered into
    the paragraph (or list item, or caption) of the container it is in."""

    def __init__(self) -> None:
        self.blocks = Blocks()
        self.parts: list[str] = []
        self.kind = PARAGRAPH

    def flush(self) -> None:
        self.blocks.add(self.kind, "".join(self.parts))
        self.parts = []

    def walk(self, element: lxml.html.HtmlElement) -> None:
        tag = element.tag
        if tag in _HEADINGS:
            self.flush()
            self.blocks.add(HEADING, element.text_content(), level=_HEADINGS[tag])
        elif tag == "pre":
            self.flush()
            self.blocks.add(PARAGRAPH, element.text_content(), keep_lines=True)
        elif tag == "table":
            self.flush()
            self.table(element)
        elif tag in _INLINE and not any(
            isinstance(inner.tag, str) and inner.tag not in _INLINE
            for inner in element.iterdescendants()
        ):
            self.parts.append(element.text_content())
        else:
            self.container(element)

    def container(self, element: lxml.html.HtmlElement) -> None:
        self.flush()
        outer, self.kind = self.kind, _KIND.get(element.tag, self.kind)
        self.parts.append(element.text or "")
        for child in element:
            if isinstance(child.tag, str):
                self.walk(child)
            self.parts.append(child.tail or "")
        self.flush()
        self.kind = outer

    def table(self, table: lxml.html.HtmlElement) -> None:
        rows = []
        for child in table:
            if child.tag == "caption":
                self.blocks.add(CAPTION, child.text_content())
            elif child.tag == "tr":
                rows.append(child)
            elif child.tag in ("thead", "tbody", "tfoot"):
                rows.extend(row for row in child if row.tag == "tr")
        self.blocks.add_table(_cells(rows))


def _cells(rows: list[lxml.html.HtmlElement]) -> list[Cell]:
    """Cells placed on the table's grid: a cell goes in the first column of its row not
    covered by a cell above that spans rows."""
    cells = []
    busy: dict[int, int] = {}  # column: the first row no cell above covers
    for r, row in enumerate(rows):
        column = 0
        for cell in row:
            if cell.tag not in ("td", "th"):
                continue
            while busy.get(column, 0) > r:
                column += 1
            rows_spanned = min(_span(cell.get("rowspan")), len(rows) - r)
            columns = _span(cell.get("colspan"))
            for covered in range(column, column + columns):
                busy[covered] = r + rows_spanned
            text = clean(cell.text_content())
            header = cell.tag == "th"
            cells.append(Cell(r, column, text, rows=rows_spanned, columns=columns, header=header))
            column += columns
    return cells


def _span(value: str | None) -> int:
    try:
        return min(max(int(value or 1), 1), MAX_SPAN)
    except ValueError:
        return 1
