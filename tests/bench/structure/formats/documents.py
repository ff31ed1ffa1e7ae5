"""The labelled documents of the structure benchmark of other types: one of each type,
built here from the corpus's generated sentences, with the checks it is held to."""

from __future__ import annotations

import io
import itertools
import re
import zipfile
from dataclasses import dataclass
from email.message import EmailMessage
from typing import TYPE_CHECKING

from tests.bench.structure.checks import (
    Absent,
    Before,
    Check,
    Heading,
    Neighbour,
    Present,
)
from tests.bench.structure.corpus import paragraph, sentences

if TYPE_CHECKING:
    pass

TARGETS = {"present": 0.95, "order": 0.90, "table": 0.90, "heading": 0.85, "absent": 0.90}
COLUMNS = ("present", "order", "table", "heading", "absent")
MIN_CPU_SECONDS = 0.5  # a document is read again until its readings took this much
MAX_RUNS = 200
TABLE = (
    ("Station", "Intake", "Output"),
    ("Larkfield", "412", "398"),
    ("Mossbank", "275", "301"),
    ("Quayside", "198", "240"),
)
NEIGHBOURS: list[Check] = [
    Neighbour("Station", "right", "Intake"),
    Neighbour("Intake", "below", "412"),
    Neighbour("Mossbank", "above", "Larkfield"),
    Neighbour("301", "left", "275"),
    Neighbour("Output", "below", "398"),
    Neighbour("Quayside", "right", "198"),
]
HEADER, FOOTER = "Harbour works, internal circulation", "Printed by the records office"


@dataclass(frozen=True)
class Labelled:
    code: str  # search/file_types.py's
    data: bytes
    checks: list[Check]
    pages: int = 0  # 0: pageless


@dataclass(frozen=True)
class Section:
    heading: str
    level: int  # 1 or 2
    text: str = ""
    items: tuple[str, ...] = ()
    table: bool = False


@dataclass(frozen=True)
class Content:
    """What the documents of running prose say: a title, sections at two levels, a list
    and a table, each type's writer rendering it its own way."""

    title: str
    sections: tuple[Section, ...]

    def passages(self, *, items: bool = True, table: bool = True) -> list[str]:
        found: list[str] = []
        for section in self.sections:
            found += sentences_of(section.text)
            found += list(section.items) if items else []
            found += [" ".join(row) for row in TABLE] if table and section.table else []
        return found


def content(seed: int) -> Content:
    return Content(
        f"Harbour works report {seed}",
        (
            Section("Background", 1, paragraph(seed, 3)),
            Section("Site visits", 2, paragraph(seed + 1, 3), tuple(sentences(seed + 2, 3))),
            Section("Figures", 1, table=True),
            Section("Outlook", 1, paragraph(seed + 3, 3)),
        ),
    )


def sentences_of(text: str) -> list[str]:
    return [part for part in re.split(r"(?<=\)\.) ", text) if part]


def body_checks(passages: list[str]) -> list[Check]:
    """Each passage present, and each before the next."""
    checks: list[Check] = [Present(passage) for passage in passages]
    return checks + [Before(a, b) for a, b in itertools.pairwise(passages)]


def prose_checks(doc: Content, headings: list[tuple[str, int]], **parts: bool) -> list[Check]:
    checks = body_checks(doc.passages(**parts))
    checks += [Heading(text, level) for text, level in headings]
    return checks + (NEIGHBOURS if parts.get("table", True) else [])


def levels(doc: Content, *, title: int, shift: int) -> list[tuple[str, int]]:
    return [(doc.title, title)] + [(s.heading, s.level + shift) for s in doc.sections]


# Office Open XML, by the libraries that write it.


def docx_document() -> Labelled:
    import docx

    doc, document = content(4701), docx.Document()
    document.add_heading(doc.title, level=0)
    for section in doc.sections:
        document.add_heading(section.heading, level=section.level)
        if section.text:
            document.add_paragraph(section.text)
        for item in section.items:
            document.add_paragraph(item, style="List Bullet")
        if section.table:
            grid = document.add_table(rows=len(TABLE), cols=len(TABLE[0]))
            for r, row in enumerate(TABLE):
                for c, value in enumerate(row):
                    grid.cell(r, c).text = value
    document.sections[0].header.paragraphs[0].text = HEADER
    document.sections[0].footer.paragraphs[0].text = FOOTER
    checks = prose_checks(doc, levels(doc, title=0, shift=0))
    return Labelled("docx", _saved(document), [*checks, Absent(HEADER), Absent(FOOTER)])


def pptx_document() -> Labelled:
    from pptx import Presentation
    from pptx.util import Cm

    titles, bullets = ("Harbour works review", "Site visits", "Figures"), sentences(4702, 3)
    subtitle = sentences(4703, 1)[0]
    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text, first.placeholders[1].text = titles[0], subtitle
    second = deck.slides.add_slide(deck.slide_layouts[1])
    second.shapes.title.text = titles[1]
    second.placeholders[1].text_frame.text = bullets[0]
    for bullet in bullets[1:]:
        second.placeholders[1].text_frame.add_paragraph().text = bullet
    third = deck.slides.add_slide(deck.slide_layouts[5])
    third.shapes.title.text = titles[2]
    shape = third.shapes.add_table(len(TABLE), len(TABLE[0]), Cm(2), Cm(5), Cm(20), Cm(8))
    for r, row in enumerate(TABLE):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value
    passages = [subtitle, *bullets, *(" ".join(row) for row in TABLE)]
    headings = [Heading(titles[0], 0), Heading(titles[1], 1), Heading(titles[2], 1)]
    checks = body_checks(passages) + headings + NEIGHBOURS
    return Labelled("pptx", _saved(deck), checks, pages=3)


SHEETS = {"Intake": TABLE, "Staffing": (("Crew", "Shift"), ("Divers", "Night"), ("Riggers", "Day"))}


def sheet_checks() -> list[Check]:
    rows = [" ".join(row) for table in SHEETS.values() for row in table]
    headings = [Heading(name, 1) for name in SHEETS]
    staffing = [Neighbour("Crew", "below", "Divers"), Neighbour("Night", "left", "Divers")]
    return body_checks(rows) + headings + NEIGHBOURS + staffing


def xlsx_document() -> Labelled:
    import openpyxl  # type: ignore[import-untyped]

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, table in SHEETS.items():
        sheet = book.create_sheet(name)
        for row in table:
            sheet.append([int(value) if value.isdigit() else value for value in row])
    return Labelled("xlsx", _saved(book), sheet_checks())


def _saved(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


# OpenDocument, written by hand as tests/search/formats/files.py's odf() writes it.

ODF = "urn:oasis:names:tc:opendocument:xmlns:"
NAMESPACES = " ".join(
    f'xmlns:{prefix}="{ODF}{name}:1.0"'
    for prefix, name in (
        ("office", "office"),
        ("style", "style"),
        ("text", "text"),
        ("table", "table"),
        ("draw", "drawing"),
        ("presentation", "presentation"),
        ("fo", "xsl-fo-compatible"),
        ("svg", "svg-compatible"),
    )
)


def odf(kind: str, body: str, styles: str = "") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        mimetype = f"application/vnd.oasis.opendocument.{kind}"
        archive.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        archive.writestr(
            "content.xml",
            f'<?xml version="1.0"?><office:document-content {NAMESPACES}>'
            f"<office:body>{body}</office:body></office:document-content>",
        )
        archive.writestr(
            "styles.xml",
            f'<?xml version="1.0"?><office:document-styles {NAMESPACES}>{styles}'
            "</office:document-styles>",
        )
    return buffer.getvalue()


def odf_table(rows: tuple[tuple[str, ...], ...], *, sheet: str = "") -> str:
    def row(values: tuple[str, ...]) -> str:
        cells = "".join(
            f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'
            for v in values
        )
        return f"<table:table-row>{cells}</table:table-row>"

    name = f' table:name="{sheet}"' if sheet else ""
    head = f"<table:table-header-rows>{row(rows[0])}</table:table-header-rows>"
    return f"<table:table{name}>{head}{''.join(row(r) for r in rows[1:])}</table:table>"


def odt_document() -> Labelled:
    doc = content(4704)
    parts = [f'<text:p text:style-name="Title">{doc.title}</text:p>']
    for section in doc.sections:
        parts.append(f'<text:h text:outline-level="{section.level}">{section.heading}</text:h>')
        parts += [f"<text:p>{section.text}</text:p>"] if section.text else []
        items = "".join(
            f"<text:list-item><text:p>{i}</text:p></text:list-item>" for i in section.items
        )
        parts += [f"<text:list>{items}</text:list>"] if items else []
        parts += [odf_table(TABLE)] if section.table else []
    styles = (
        '<office:master-styles><style:master-page style:name="Standard">'
        f"<style:header><text:p>{HEADER}</text:p></style:header>"
        f"<style:footer><text:p>{FOOTER}</text:p></style:footer>"
        "</style:master-page></office:master-styles>"
    )
    data = odf("text", f"<office:text>{''.join(parts)}</office:text>", styles)
    checks = prose_checks(doc, levels(doc, title=0, shift=0))
    return Labelled("odt", data, [*checks, Absent(HEADER), Absent(FOOTER)])


def odp_frame(kind: str, y: int, inner: str) -> str:
    height = 3 if kind == "title" else 8
    where = f'svg:x="2cm" svg:y="{y}cm" svg:width="24cm" svg:height="{height}cm"'
    if kind == "table":
        return f"<draw:frame {where}>{inner}</draw:frame>"
    inner = f"<draw:text-box>{inner}</draw:text-box>"
    return f'<draw:frame presentation:class="{kind}" {where}>{inner}</draw:frame>'


def odp_document() -> Labelled:
    titles, bullets = ("Harbour works review", "Site visits", "Figures"), sentences(4705, 3)
    subtitle = sentences(4706, 1)[0]
    items = "".join(f"<text:list-item><text:p>{b}</text:p></text:list-item>" for b in bullets)
    slides = [
        [
            odp_frame("title", 1, f"<text:p>{titles[0]}</text:p>"),
            odp_frame("subtitle", 5, f"<text:p>{subtitle}</text:p>"),
        ],
        [
            odp_frame("title", 1, f"<text:p>{titles[1]}</text:p>"),
            odp_frame("outline", 5, f"<text:list>{items}</text:list>"),
        ],
        [
            odp_frame("title", 1, f"<text:p>{titles[2]}</text:p>"),
            odp_frame("table", 5, odf_table(TABLE)),
        ],
    ]
    pages = "".join(
        f'<draw:page draw:name="p{n}" draw:master-page-name="Default">{"".join(frames)}</draw:page>'
        for n, frames in enumerate(slides, start=1)
    )
    styles = (
        '<office:automatic-styles><style:page-layout style:name="PM1">'
        '<style:page-layout-properties fo:page-width="28cm" fo:page-height="15.75cm"/>'
        "</style:page-layout></office:automatic-styles><office:master-styles>"
        '<style:master-page style:name="Default" style:page-layout-name="PM1"/>'
        "</office:master-styles>"
    )
    data = odf("presentation", f"<office:presentation>{pages}</office:presentation>", styles)
    passages = [subtitle, *bullets, *(" ".join(row) for row in TABLE)]
    headings = [Heading(titles[0], 0), Heading(titles[1], 1), Heading(titles[2], 1)]
    return Labelled("odp", data, body_checks(passages) + headings + NEIGHBOURS, pages=3)


def ods_document() -> Labelled:
    tables = "".join(odf_table(rows, sheet=name) for name, rows in SHEETS.items())
    return Labelled(
        "ods",
        odf("spreadsheet", f"<office:spreadsheet>{tables}</office:spreadsheet>"),
        sheet_checks(),
    )


# Text formats.

NAV, BANNER, SCRIPT = "Home Archive Contact us", "Harbour authority website", "trackVisitor"


def html_document() -> Labelled:
    doc = content(4707)
    parts = [f"<h1>{doc.title}</h1>"]
    for section in doc.sections:
        parts.append(f"<h{section.level + 1}>{section.heading}</h{section.level + 1}>")
        parts += [f"<p>{section.text}</p>"] if section.text else []
        parts += (
            ["<ul>" + "".join(f"<li>{i}</li>" for i in section.items) + "</ul>"]
            if section.items
            else []
        )
        if section.table:
            head = "<tr>" + "".join(f"<th>{v}</th>" for v in TABLE[0]) + "</tr>"
            rows = "".join(
                "<tr>" + "".join(f"<td>{v}</td>" for v in r) + "</tr>" for r in TABLE[1:]
            )
            parts.append(f"<table><thead>{head}</thead><tbody>{rows}</tbody></table>")
    page = (
        f"<!doctype html><html><head><title>{doc.title}</title>"
        f"<script>function {SCRIPT}() {{ return 1; }}</script>"
        "<style>p { margin: 0 }</style></head>"
        f"<body><header>{BANNER}</header><nav>{NAV}</nav><main>{''.join(parts)}</main>"
        f"<footer>{FOOTER}</footer></body></html>"
    )
    checks = prose_checks(doc, levels(doc, title=1, shift=1))
    absent: list[Check] = [Absent(NAV), Absent(BANNER), Absent(SCRIPT), Absent(FOOTER)]
    return Labelled("html", page.encode(), checks + absent)


CODE_LINE = "make harbour-report --quarter=3"


def markdown_document() -> Labelled:
    """Headings both ways: setext for the title and the first section, ATX after."""
    doc = content(4708)
    lines = [doc.title, "=" * len(doc.title), ""]
    for n, section in enumerate(doc.sections):
        if n == 0:
            lines += [section.heading, "-" * len(section.heading), ""]
        else:
            lines += ["#" * (section.level + 1) + " " + section.heading, ""]
        lines += [section.text, ""] if section.text else []
        lines += [f"- {item}" for item in section.items] + [""] if section.items else []
        if section.table:
            lines += ["| " + " | ".join(row) + " |" for row in TABLE[:1]]
            lines += ["|" + "---|" * len(TABLE[0])]
            lines += ["| " + " | ".join(row) + " |" for row in TABLE[1:]] + [""]
    lines += ["```", CODE_LINE, "```", ""]
    checks = [*prose_checks(doc, levels(doc, title=1, shift=1)), Present(CODE_LINE)]
    checks.append(Before(doc.passages()[-1], CODE_LINE))
    return Labelled("markdown", "\n".join(lines).encode(), checks)


def text_document() -> Labelled:
    """Underlined headings (=== level 1, --- level 2) and numbered ones ("2. Outlook" level
    1, "1.1 Site visits" level 2)."""
    doc = content(4709)
    background, visits, _, outlook = doc.sections
    numbered = ("1.1 " + visits.heading, "2. " + outlook.heading)
    blocks = [f"{doc.title}\n{'=' * 20}", f"{background.heading}\n{'-' * 20}", background.text]
    blocks += [numbered[0], visits.text, *visits.items, numbered[1], outlook.text]
    headings = [(doc.title, 1), (background.heading, 2), (numbered[0], 2), (numbered[1], 1)]
    checks = body_checks(doc.passages(table=False))
    checks += [Heading(text, level) for text, level in headings]
    return Labelled("text", "\n\n".join(blocks).encode(), checks)


def eml_document() -> Labelled:
    message = EmailMessage()
    message["From"], message["To"] = "alice@example.org", "bob@example.org"
    message["Subject"] = "Harbour works this week"
    texts = [paragraph(4710 + n, 3) for n in range(3)]
    message.set_content("Hello Bob,\n\n" + "\n\n".join(texts) + "\n\nAlice\n")
    passages = [s for text in texts for s in sentences_of(text)]
    return Labelled("eml", message.as_bytes(), body_checks(passages))


# Images: typeset text, as a scanner saves it.


def image_document(code: str, form: str, pages: int) -> Labelled:
    from tests.factories import scanned_image

    texts = [[paragraph(4720 + 10 * page + n, 3) for n in range(2)] for page in range(pages)]
    data = scanned_image(*("\n\n".join(page) for page in texts), form=form)
    passages = [s for page in texts for text in page for s in sentences_of(text)]
    return Labelled(code, data, body_checks(passages), pages=pages)


def documents() -> list[Labelled]:
    return [
        docx_document(),
        pptx_document(),
        xlsx_document(),
        odt_document(),
        odp_document(),
        ods_document(),
        html_document(),
        markdown_document(),
        text_document(),
        eml_document(),
        image_document("png", "PNG", 1),
        image_document("tiff", "TIFF", 2),
    ]


# Reading, as the sandboxed child does, in this process.
