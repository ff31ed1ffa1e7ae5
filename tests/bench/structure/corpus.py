"""The structure benchmark's generated documents: PDFs made here with a known structure
(fpdf2), each with the checks (checks.py) its structure implies.

Nothing is copied from elsewhere: the text is made of sentences built from the word lists
below with a seeded random generator, so every passage is unique and every run makes the
same files. Each document shows one thing a flat reading gets wrong:

- report: a title, headings at two levels, a list, a running header and a "Page n of m"
  footer on every page, a paragraph across a page break, a word hyphenated across it;
- columns: two columns under a title that spans both;
- tables: a ruled and an unruled table, each under its caption;
- long_table: a ruled table over two pages, its header row repeated;
- footnotes: a footnote under the paragraph that calls it;
- line_numbers: a numbered draft, with a printer's mark in the margin;
- landscape, sideways: the two columns on a landscape page stored turned (it shows
  upright), and shown a quarter turn (its text runs up the page);
- scanned: the report's first page as an image, no text layer (a reader needs OCR).
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pypdfium2  # type: ignore[import-untyped]
from fpdf import FPDF
from fpdf.fonts import FontFace

from tests.bench.structure.checks import Absent, Before, Check, Heading, Neighbour, Present

SUBJECTS = [
    "The committee",
    "Our northern depot",
    "The survey team",
    "The harbour office",
    "A small bakery",
    "The regional council",
    "The night shift",
    "Every branch manager",
    "The river authority",
    "The library board",
    "A visiting engineer",
    "The finance desk",
]
VERBS = [
    "reviewed",
    "shipped",
    "measured",
    "postponed",
    "approved",
    "repaired",
    "counted",
    "described",
    "rebuilt",
    "inspected",
    "recorded",
    "replaced",
]
OBJECTS = [
    "the spring timetable",
    "forty crates of apples",
    "the flood barriers",
    "its oldest ledger",
    "the cooling pumps",
    "a draft of the charter",
    "the new loading bay",
    "every water meter",
    "the orchard fences",
    "the staff handbook",
    "the harbour cranes",
    "the winter budget",
]
TAILS = [
    "before the holiday",
    "after a long debate",
    "with borrowed tools",
    "in record time",
    "despite the storm",
    "for the third year running",
    "under a tight deadline",
    "without any complaint",
    "at the request of the mayor",
    "during the night",
]


def sentences(seed: int, count: int) -> list[str]:
    pick = random.Random(seed)
    return [
        f"{pick.choice(SUBJECTS)} {pick.choice(VERBS)} {pick.choice(OBJECTS)} "
        f"{pick.choice(TAILS)} (note {seed}-{n})."
        for n in range(count)
    ]


def paragraph(seed: int, count: int = 4) -> str:
    return " ".join(sentences(seed, count))


@dataclass(frozen=True)
class Sample:
    name: str
    pdf: bytes
    pages: int
    checks: list[Check]
    born_digital: bool = True  # False: a scan; its reading time is OCR's, not counted


class Paper(FPDF):
    """A4 in points, Helvetica, with an optional running header and footer."""

    def __init__(self, header_text: str = "", footer: bool = False) -> None:
        super().__init__(unit="pt", format="A4")
        self.header_text, self.with_footer = header_text, footer
        self.set_margins(56, 56, 56)
        self.set_auto_page_break(True, margin=64)
        self.set_font("Helvetica", size=11)

    def header(self) -> None:
        if self.header_text:
            self.set_font("Helvetica", "I", 9)
            self.set_xy(56, 24)
            self.cell(0, 12, self.header_text, align="C")
            self.set_xy(56, 56)
            self.set_font("Helvetica", size=11)

    def footer(self) -> None:
        if self.with_footer:
            self.set_font("Helvetica", "I", 9)
            self.set_xy(56, self.h - 40)
            self.cell(0, 12, f"Page {self.page_no()} of {{nb}}", align="C")
            self.set_font("Helvetica", size=11)

    def heading(self, text: str, size: int) -> None:
        self.set_font("Helvetica", "B", size)
        self.multi_cell(0, size * 1.3, text, new_x="LMARGIN", new_y="NEXT")
        self.ln(4)
        self.set_font("Helvetica", size=11)

    def para(self, text: str, width: float = 0) -> None:
        self.multi_cell(width, 14, text, new_x="LMARGIN", new_y="NEXT")
        self.ln(8)

    def done(self) -> bytes:
        return bytes(self.output())


def report() -> Sample:
    running = "Northwind Trading - Annual Report 2025"
    pdf = Paper(running, footer=True)
    pdf.add_page()
    pdf.heading("Annual Report 2025", 22)
    pdf.heading("Overview", 16)
    first, second = paragraph(1), paragraph(2)
    pdf.para(first)
    pdf.para(second)
    pdf.heading("Markets", 13)
    items = sentences(3, 3)
    for item in items:
        pdf.multi_cell(0, 14, f"- {item}", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(8)
    # A paragraph long enough to run over the page break.
    across = paragraph(4, 44)
    pdf.para(across)
    # A word hyphenated on a page's last line, its end on the next page's first.
    if pdf.get_y() > pdf.h - 80:
        pdf.add_page()
    pdf.set_y(pdf.h - 80)
    pdf.cell(0, 14, "The auditors confirmed that the harbour infor-", new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.cell(0, 14, "mation desk had kept every receipt.", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(8)
    pdf.heading("Outlook", 16)
    last = paragraph(6)
    pdf.para(last)
    pages = pdf.page_no()
    checks: list[Check] = [
        Heading("Annual Report 2025", 0),
        Heading("Overview", 1),
        Heading("Markets", 2),
        Heading("Outlook", 1),
        Present(first),
        Present(across),
        Present("the harbour information desk had kept every receipt"),
        *[Present(item) for item in items],
        Before(first, second),
        Before(second, items[0]),
        Before(across, last),
        Absent(running),
        *[Absent(f"Page {n} of {pages}") for n in range(1, pages + 1)],
    ]
    return Sample("report", pdf.done(), pages, checks)


def columns() -> Sample:
    pdf = Paper()
    pdf.add_page()
    pdf.heading("Two Columns of Harbour News", 20)
    top = pdf.get_y()
    width = (pdf.w - 112 - 24) / 2
    left = [paragraph(10 + n, 3) for n in range(3)]
    right = [paragraph(20 + n, 3) for n in range(3)]
    for x, texts in ((56, left), (56 + width + 24, right)):
        pdf.set_xy(x, top)
        for text in texts:
            pdf.set_x(x)
            pdf.multi_cell(width, 14, text, new_x="LEFT", new_y="NEXT")
            pdf.ln(8)
    checks: list[Check] = [
        Heading("Two Columns of Harbour News", 0),
        *[Present(text) for text in left + right],
        Before("Two Columns of Harbour News", left[0]),
        Before(left[0], left[1]),
        Before(left[2], right[0]),
        Before(right[1], right[2]),
    ]
    return Sample("columns", pdf.done(), pdf.page_no(), checks)


ROWS = [
    ("Region", "Spring", "Summer", "Autumn"),
    ("North", "120", "135", "150"),
    ("South", "98", "102", "117"),
    ("East", "143", "139", "161"),
    ("West", "77", "84", "90"),
]


def _table(pdf: Paper, rows: Sequence[Sequence[str]], ruled: bool) -> None:
    heading = FontFace(emphasis="BOLD")
    layout = "ALL" if ruled else "NONE"
    with pdf.table(borders_layout=layout, headings_style=heading, line_height=16) as table:
        for row in rows:
            cells = table.row()
            for text in row:
                cells.cell(text)
    pdf.ln(12)


def _table_checks(rows: Sequence[Sequence[str]]) -> list[Check]:
    return [
        Neighbour(rows[1][0], "right", rows[1][1]),
        Neighbour(rows[0][2], "below", rows[1][2]),
        Neighbour(rows[3][3], "above", rows[2][3]),
        Neighbour(rows[4][1], "left", rows[4][0]),
    ]


def tables() -> Sample:
    pdf = Paper()
    pdf.add_page()
    pdf.heading("Deliveries by Region", 18)
    intro = paragraph(30, 2)
    pdf.para(intro)
    pdf.para("Table 1: Crates delivered by region and season, ruled.")
    _table(pdf, ROWS, ruled=True)
    unruled = [("Depot", "Staff", "Vans", "Docks")] + [
        (name, str(8 + 3 * n), str(2 + n), str(1 + n % 3))
        for n, name in enumerate(["Harbour", "Market", "Station", "Mill"])
    ]
    pdf.para("Table 2: Depots and what they hold, unruled.")
    _table(pdf, unruled, ruled=False)
    checks: list[Check] = [
        Heading("Deliveries by Region", 0),
        Present(intro),
        Present("Table 1: Crates delivered by region and season, ruled."),
        Before("Table 1: Crates delivered", "Table 2: Depots"),
        *_table_checks(ROWS),
        *_table_checks(unruled),
    ]
    return Sample("tables", pdf.done(), pdf.page_no(), checks)


def long_table() -> Sample:
    pdf = Paper()
    pdf.add_page()
    pdf.heading("Water Meter Readings", 18)
    rows = [("Meter", "January", "February", "March")] + [
        (f"M-{100 + n}", str(310 + 7 * n), str(322 + 5 * n), str(335 + 3 * n)) for n in range(60)
    ]
    _table(pdf, rows, ruled=True)
    checks: list[Check] = [
        Heading("Water Meter Readings", 0),
        Neighbour("M-101", "right", "317"),
        Neighbour("M-158", "right", str(310 + 7 * 58)),
        Neighbour("M-159", "above", "M-158"),
        Neighbour(str(322 + 5 * 59), "left", str(310 + 7 * 59)),
        Before("M-120", "M-150"),
    ]
    return Sample("long_table", pdf.done(), pdf.page_no(), checks)


def footnotes() -> Sample:
    pdf = Paper()
    pdf.add_page()
    pdf.heading("Survey Method", 18)
    body, later = paragraph(40) + " The survey covered every district.1", paragraph(41)
    pdf.para(body)
    pdf.para(later)
    note = "1 The survey ran from March to May and counted only working meters."
    pdf.set_font("Helvetica", size=8)
    pdf.set_xy(56, pdf.h - 110)
    pdf.cell(0, 10, note)
    checks: list[Check] = [
        Heading("Survey Method", 0),
        Present(paragraph(40)),
        Present(later),
        Present(note),
        Before(later, note),
    ]
    return Sample("footnotes", pdf.done(), pdf.page_no(), checks)


def line_numbers() -> Sample:
    mark = "DRAFT - NOT FOR FILING"
    pdf = Paper()
    pdf.add_page()
    pdf.heading("Terms of the Lease", 18)
    lines = [sentence.rstrip(".") for sentence in sentences(50, 18)]
    for number, line in enumerate(lines, start=1):
        y = pdf.get_y()
        pdf.set_font("Helvetica", size=8)
        pdf.text(30, y + 10, str(number))
        pdf.set_font("Helvetica", size=11)
        pdf.set_xy(56, y)
        pdf.cell(0, 16, line + ("," if number < len(lines) else "."), new_x="LMARGIN")
        pdf.ln(16)
    with pdf.rotation(90, x=pdf.w - 30, y=pdf.h / 2):
        pdf.set_font("Helvetica", "B", 10)
        pdf.text(pdf.w - 30, pdf.h / 2, mark)
    joined = [f"{a}, {b}" for a, b in zip(lines[:-1:3], lines[1::3], strict=False)]
    checks: list[Check] = [
        Heading("Terms of the Lease", 0),
        *[Present(text) for text in joined],
        Before(lines[0], lines[-1]),
        Absent(mark),
    ]
    return Sample("line_numbers", pdf.done(), pdf.page_no(), checks)


def turned(pdf: bytes, rotation: int, *, landscape: bool = False) -> bytes:
    """The PDF's first page shown turned `rotation` degrees clockwise; `landscape`: its
    content stored a quarter turn back on a landscape media box (how a landscape page is
    often made), so that it shows upright."""
    document = pypdfium2.PdfDocument(pdf)
    page = document[0]
    width, height = page.get_size()
    if landscape:
        for obj in list(page.get_objects()):
            obj.transform(pypdfium2.PdfMatrix(0, 1, -1, 0, height, 0))
        page.gen_content()
        page.set_mediabox(0, 0, height, width)
    page.set_rotation(rotation)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def landscape() -> Sample:
    """The two columns on a landscape media box, stored turned with its rotation said: it
    shows upright."""
    upright = columns()
    return Sample("landscape", turned(upright.pdf, 90, landscape=True), 1, upright.checks)


def sideways() -> Sample:
    """The two columns shown turned a quarter: the text runs up the page."""
    upright = columns()
    return Sample("sideways", turned(upright.pdf, 270, landscape=False), 1, upright.checks)


def scanned() -> Sample:
    """The report's first page as a scanner makes it: an image at 200 dpi, no text layer."""
    source = pypdfium2.PdfDocument(report().pdf)
    image = source[0].render(scale=200 / 72, grayscale=True).to_pil()
    out = io.BytesIO()
    image.save(out, format="PDF", resolution=200)
    first, second = paragraph(1), paragraph(2)
    checks: list[Check] = [
        Heading("Annual Report 2025", 0),
        Present(first),
        Present(second),
        Before(first, second),
        Before("Annual Report 2025", first),
    ]
    return Sample("scanned", out.getvalue(), 1, checks, born_digital=False)


MAKERS: list[Callable[[], Sample]] = [
    report,
    columns,
    tables,
    long_table,
    footnotes,
    line_numbers,
    landscape,
    sideways,
    scanned,
]


def generated() -> list[Sample]:
    return [make() for make in MAKERS]
