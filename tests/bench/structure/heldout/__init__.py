"""The structure benchmark's held-out set: documents labelled by hand that the reader is
never tuned on.

What it is. Seven documents made here and two real ones from the test corpus, each with
checks (checks.py) written by hand. The generated corpus (corpus.py, fpdf2) is what the
structure reader was shaped on; this set is made another way (HTML printed by Chromium), on
other subjects (a school district, a bicycle co-op, a hospital pharmacy, a seed library, a
lending library, a community garden), so a figure on it says how the reader does on
documents it has not seen. Whoever tunes the reader does not look at these documents or
their misses while tuning; a miss found here is fixed by the general rule it shows, and
this set is then looked at again only to measure.

How it was made. make.py holds each document's HTML, written by hand, original text
throughout; Debian's chromium printed it to PDF through Playwright, with Chromium's running
header and footer templates for page furniture. The checks below were written from that
HTML and from the printed pages, looked at as images; never from what any reader makes of
them. The real documents (py-pdf/sample-files, CC BY-SA 4.0, see tests/corpus/LICENSES)
were labelled from their rendered pages alone.

What the documents show. Headings at three levels (a title is level 0, top sections 1,
their subsections 2), numbered headings, a two-line title; bulleted and numbered lists; a
paragraph across a page break (once with footnotes between its halves); text in two and in
three CSS columns, paragraphs running from one column into the next, under headings that
span the columns; words split at a line's end by a soft hyphen (Chromium draws U+2010
there); a floated box beside the text; tables ruled, unruled, ruled across only, with
spanned cells, and one over three pages whose header row Chromium repeats on each; a
landscape page with wide tables; footnotes; running headers and "Page n of m" footers.

To regenerate the PDFs: `python -m tests.bench.structure.heldout.make` (needs Playwright
and chromium; `--png DIR` also renders the pages to look at). The committed PDFs are the
reference: a fresh print on another machine or Chromium may break lines and pages elsewhere,
so after regenerating, look at the pages again and fix the checks that name a split passage.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bench.structure.checks import Absent, Before, Check, Heading, Neighbour, Present
from tests.bench.structure.corpus import Sample

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[2] / "corpus"


def _sample(name: str, pages: int, checks: list[Check]) -> Sample:
    return Sample(f"held out: {name}", (HERE / f"{name}.pdf").read_bytes(), pages, checks)


def _pages_of(total: int) -> list[Check]:
    return [Absent(f"Page {n} of {total}") for n in range(1, total + 1)]


def transport_review() -> Sample:
    """A school district's report, three pages: a title, sections and subsections, a
    bulleted and two numbered lists, a running header and "Page n of m" footer; its longest
    paragraph starts under a heading at the foot of page 1 and ends on page 2, split
    mid-sentence."""
    fleet = (
        "The district owns sixty-one buses, of which fifty-four are needed on an ordinary "
        "school day; the other seven are spares that cover for breakdowns, inspections, "
        "driver training and field trips. The average bus is now nine years old, but that "
        "average hides a wide spread, because twelve buses bought in a single order in 2011 "
        "are approaching the end of their useful lives all at once. Those twelve buses spent "
        "a combined 214 days in the workshop this year, against 96 days for the rest of the "
        "fleet put together, and on nineteen mornings the transport office had no spare bus "
        "left to send when one of them would not start. Mechanics report that parts for the "
        "2011 engines now take up to three weeks to arrive, since the maker stopped "
        "producing them, and that two of the buses have rust in their floor frames that can "
        "be patched but not properly repaired. The workshop itself is also under strain: it "
        "has four bays, it was built when the fleet was half its present size, and in the "
        "coldest weeks of January the mechanics worked on buses parked outside under "
        "floodlights because every bay was already taken. None of this has yet made a bus "
        "unsafe to drive, and every bus passed its annual state inspection in August, but "
        "the margin is thinner than it has been at any time in the past decade, and a hard "
        "winter could leave the district short of buses on the routes that can least afford "
        "a late pickup."
    )
    checks: list[Check] = [
        Heading("Annual Transport Review 2024-25", 0),
        Heading("Summary", 1),
        Heading("Ridership", 1),
        Heading("Morning routes", 2),
        Heading("Afternoon routes", 2),
        Heading("Fleet and Maintenance", 1),
        Heading("Electric buses", 2),
        Heading("Repairs and inspections", 2),
        Heading("Drivers", 1),
        Heading("Costs", 1),
        Heading("Recommendations", 1),
        Present(fleet),
        Present("Prepared by the transport office for the board of education, September 2025."),
        Present("Elementary routes carried an average of 2,140 pupils a day, up from 1,985."),
        Present(
            "High school routes carried 1,065 pupils a day, a small fall as more seniors drove "
            "themselves."
        ),
        Present("Route 22 now stops at the new apartments on Alder Lane."),
        Present(
            "Add a second morning run in the eastern hills so that no pupil waits at a stop "
            "before 6:50."
        ),
        Present(
            "Exit interviews point to the split shift as the main reason drivers leave: a "
            "driver works from six until nine in the morning and from two until five in the "
            "afternoon, and is paid for neither the gap nor the drive home and back in between."
        ),
        Before("Annual Transport Review 2024-25", "Prepared by the transport office"),
        Before("Three findings stand out.", "Each bus carries a tablet"),
        Before("Route 14 was split in two", "Route 22 now stops at the new apartments"),
        Before("instead of 4:45.", "Fleet and Maintenance"),
        Before("least afford a late pickup.", "The four electric buses that arrived"),
        Before("some 200,000 dollars more than last year.", "Replace the twelve buses bought"),
        Absent("Riverside Unified School District | Transport Office | Board copy"),
        *_pages_of(3),
    ]
    return _sample("transport_review", 3, checks)


def coop_newsletter() -> Sample:
    """A newsletter, two pages: a masthead title, then two columns under a heading that
    spans both, with subheadings in the columns and a paragraph running from the first
    column into the second; on page 2, three narrow justified columns with words split by
    soft hyphens and paragraphs running on from column to column; an unruled table of
    dates; a running header and a "- n -" footer."""
    checks: list[Check] = [
        Heading("The Spoke Sheet", 0),
        Heading("News from the Workshop", 1),
        Heading("New opening hours", 2),
        Heading("The tool library", 2),
        Heading("Bikes for the refugee centre", 2),
        Heading("The winter ride", 2),
        Heading("Volunteer Corner", 1),
        Heading("Dates for the Diary", 1),
        Present("Newsletter of the Eastside Bicycle Co-op. Spring issue, free to members."),
        Present(
            "Last year we lost a torque wrench and three pedal spanners. We would rather not "
            "buy them again, so if one of them is sitting in your shed, it can be dropped "
            "through the letterbox, no questions asked."
        ),
        Present("New volunteers start with an introductory morning on a Saturday"),
        Present(
            "Some volunteers help with wheelbuilding, others with brake and gear adjustments, "
            "and a few prefer to keep the parts shelves in order, which is harder than it "
            "sounds."
        ),
        Present(
            "Volunteers may use the workshop and its tools for their own bicycles outside "
            "opening hours, once they have been with us for three months."
        ),
        Present("teaches the Tuesday class on hydraulic brakes and suspension forks."),
        Present("a cake in the shape of a chainring, which disappeared in about four minutes."),
        Before("Please write your name and the date on the card", "Over the winter our"),
        Before("no questions asked.", "Bikes for the refugee centre"),
        Before("when the hours may change.", "Members can still book the truing stand"),
        Before("the hedges are full of blackberries.", "Volunteer Corner"),
        Before("Volunteers are the reason the cooperative exists.", "After that, you choose"),
        Before("help the treasurer for a few hours a month.", "Teenagers are welcome"),
        Before("put the kettle back where you found it.", "Once a year we thank our"),
        Before("by the workshop door.", "Dates for the Diary"),
        Neighbour("19 April", "right", "Puncture repair class for children"),
        Neighbour("Members' ride to the reservoir", "right", "Meet at the library"),
        Neighbour("17 May", "above", "3 May"),
        Neighbour("Event", "below", "Spring clean of the workshop"),
        Neighbour("Secondhand bike sale", "above", "Annual general meeting"),
        Absent("Eastside Bicycle Co-op - The Spoke Sheet - Spring 2025"),
        Absent("- 1 -"),
        Absent("- 2 -"),
    ]
    return _sample("coop_newsletter", 2, checks)


def pharmacy_tables() -> Sample:
    """A pharmacy's report, two pages, four tables under their captions: ruled; ruled with
    spanned cells (a two-row header with a cell over three months, wards spanning rows);
    unruled, its caption a paragraph at the top of page 2 while its section starts on page
    1; ruled across only (top, under the header, bottom). The title wraps onto two lines.

    The spanned table's grid: Ward and Medicine span the two header rows, "Doses
    dispensed" spans January to March, "Returned unused" both header rows; each ward spans
    its medicines' rows. No check names a spanned cell."""
    checks: list[Check] = [
        Heading("Pharmacy Dispensing Report, January to March", 0),
        Heading("Stock on Hand", 1),
        Heading("Dispensing by Ward", 1),
        Heading("Returns and Waste", 1),
        Heading("Turnaround Times", 1),
        Present(
            "This report sets out the state of the pharmacy's stock at the end of the first "
            "quarter, how many doses each ward received, what came back unused and how long "
            "prescriptions waited before they were filled."
        ),
        Present("Table 1: Stock of selected medicines on 31 March"),
        Present("Table 2: Doses dispensed and returned, by ward and month"),
        Present("Table 3: Doses returned to the pharmacy, by reason"),
        Present("Table 4: Minutes from prescription to dispensing, by time of day"),
        Present(
            "Evening and night prescriptions wait less because fewer arrive at once, although "
            "the single pharmacist on duty at night also answers the telephone for every ward."
        ),
        Before("Table 1: Stock of selected medicines", "are below their reorder levels"),
        Before("Table 2: Doses dispensed and returned", "Bisoprolol"),
        Before("Seventy-nine doses came back", "Table 3: Doses returned"),
        Before("Table 3: Doses returned", "Turnaround Times"),
        Before("Table 4: Minutes from prescription", "Evening and night prescriptions"),
        # Table 1, ruled.
        Neighbour("Insulin glargine", "right", "Pen"),
        Neighbour("3,150", "below", "96"),
        Neighbour("Oral solution", "above", "Pen"),
        Neighbour("Strength", "below", "500 mg"),
        Neighbour("600", "left", "720"),
        # Table 2, spanned cells: only cells whose grid place is plain.
        Neighbour("Apixaban", "right", "412"),
        Neighbour("January", "below", "412"),
        Neighbour("February", "right", "March"),
        Neighbour("412", "below", "530"),
        Neighbour("547", "left", "530"),
        Neighbour("Bisoprolol", "below", "Furosemide"),
        Neighbour("301", "above", "251"),
        Neighbour("602", "right", "21"),
        Neighbour("359", "below", "156"),
        # Table 3, unruled.
        Neighbour("Dose changed", "right", "19"),
        Neighbour("24%", "below", "15%"),
        Neighbour("Patient refused", "above", "Medicine stopped"),
        Neighbour("Doses", "below", "38"),
        # Table 4, ruled across only.
        Neighbour("Afternoon, 12 to 17", "right", "986"),
        Neighbour("31", "below", "18"),
        Neighbour("Longest wait", "below", "95"),
        Neighbour("13", "left", "205"),
        Absent("St Brigid's Hospital Pharmacy | internal use only"),
        *_pages_of(2),
    ]
    return _sample("pharmacy_tables", 2, checks)


def seed_register() -> Sample:
    """A seed library's register: a ruled table of a hundred rows over three pages, its
    header row repeated by Chromium at the top of pages 2 and 3 (HC-0131 ends page 1,
    HC-0168 ends page 2), between a captioned introduction and a closing section."""
    checks: list[Check] = [
        Heading("Hollow Creek Seed Library: Accession Register", 0),
        Heading("Notes on the Register", 1),
        Present("Table 1: Seed lots held on 1 March 2025, by accession number"),
        Present(
            "Every lot of seed the library holds has an accession number, given when the seed "
            "first comes in and never used again."
        ),
        Present(
            "Lots whose germination fell below seventy percent are set aside for regrowing "
            "this summer, so that fresh seed can replace them before they are lost."
        ),
        Before("never used again.", "Table 1: Seed lots held"),
        Before("Table 1: Seed lots held", "HC-0101"),
        Before("HC-0131", "HC-0132"),
        Before("HC-0168", "HC-0169"),
        Before("HC-0200", "Notes on the Register"),
        Neighbour("Accession", "below", "HC-0101"),
        Neighbour("HC-0101", "right", "Pepper"),
        Neighbour("HC-0131", "below", "HC-0132"),
        Neighbour("HC-0132", "above", "HC-0131"),
        Neighbour("93%", "above", "95%"),
        Neighbour("370", "above", "175"),
        Neighbour("HC-0168", "below", "HC-0169"),
        Neighbour("HC-0169", "right", "Squash"),
        Neighbour("HC-0200", "above", "HC-0199"),
        Absent("Hollow Creek Seed Library - register extract"),
        *_pages_of(3),
    ]
    return _sample("seed_register", 3, checks)


def library_footnotes() -> Sample:
    """A short history, two pages, with numbered footnotes at each page's foot (small
    type under a short rule) called by superscript numbers in the text; the last
    paragraph of page 1 runs on to page 2 mid-sentence, the footnotes between its halves.
    A running header and an "n / m" footer."""
    moving = (
        "Moving the books took a week of evenings. Volunteers carried them in laundry baskets "
        "along the towpath, and the river board lent a cart for the heavy cases. The new "
        "reading room had tall windows facing the water, a fireplace at each end and enough "
        "shelving for six thousand volumes, which seemed far more than the library would "
        "ever need. Within ten years the shelves were full, and the committee began to talk "
        "about adding an upper floor, although nobody could say where the money for it would "
        "come from. In the end it came from a bequest left by a retired schoolteacher, who "
        "asked only that the new floor be kept for children."
    )
    checks: list[Check] = [
        Heading("A Hundred Years of Borrowing: The Millbrook Lending Library", 0),
        Heading("Beginnings", 1),
        Heading("A Building of Its Own", 1),
        Heading("War and After", 1),
        Heading("The Library Today", 1),
        Present("Written for the centenary by the library's volunteer archivists"),
        Present("kept a shelf of novels that customers could borrow for a penny a week."),
        Present(moving),
        Present(
            "Pell's shop ledger survives in the county record office and lists the names of "
            "the borrowers in its first year."
        ),
        Present(
            "The stove cost eleven shillings and was still in use, in the children's corner, "
            "until 1962."
        ),
        Present(
            "Their rota, written in pencil on the back of a seed catalogue, hangs framed in "
            "the entrance hall."
        ),
        Present("The committee still meets on the first Monday of each month."),
        Before("By the spring of 1925", "The committee met on the first Monday"),
        Before("Neither fear came true", "Pell's shop ledger survives"),
        Before("Pell's shop ledger survives", "The stove cost eleven shillings"),
        Before("The stove cost eleven shillings", "Ninety four tickets were issued"),
        Before("War and After", "The Library Today"),
        Before("The weighing house still stands", "Their rota, written in pencil"),
        Absent("Millbrook Lending Library, 1925-2025"),
        Absent("1 / 2"),
        Absent("2 / 2"),
    ]
    return _sample("library_footnotes", 2, checks)


def shuttle_landscape() -> Sample:
    """A landscape page: two wide ruled timetables (twelve and ten columns), each under
    its heading, then a bulleted list of notes; a running header and footer."""
    checks: list[Check] = [
        Heading("St Brigid's Hospital Shuttle Bus", 0),
        Heading("Monday to Friday", 1),
        Heading("Saturday", 1),
        Present(
            "It runs in a loop from the park and ride site to the hospital and back, calling "
            "at every stop below in the order shown."
        ),
        Present("Wheelchair users can board at every stop; the driver will lower the ramp."),
        Before("Monday to Friday", "Saturday"),
        Before("13:11", "08:25"),
        Before("16:06", "There is no service on Sundays or public holidays."),
        Neighbour("Main Entrance", "right", "06:22"),
        Neighbour("08:50", "below", "08:55"),
        Neighbour("10:59", "right", "11:39"),
        Neighbour("Run 6", "below", "09:30"),
        Neighbour("12:27", "above", "12:24"),
        Neighbour("13:55", "below", "14:00"),
        Neighbour("15:54", "left", "14:59"),
        Neighbour("Run 9", "below", "15:45"),
        Absent("Timetable valid from 1 September 2025 until further notice"),
        *_pages_of(1),
    ]
    return _sample("shuttle_landscape", 1, checks)


def garden_minutes() -> Sample:
    """Minutes, two pages: numbered headings at two levels ("2.1 Membership dues"), a
    boxed summary floated to the right of the first section (its place in the reading
    order is left open: only its text is checked), a numbered list, a ruled table of
    actions at the top of page 2, and a footer line on each page."""
    checks: list[Check] = [
        Heading("Larkfield Community Garden: Minutes of the Board Meeting", 0),
        Heading("1. Attendance", 1),
        Heading("2. Treasurer's Report", 1),
        Heading("2.1 Membership dues", 2),
        Heading("2.2 County grant", 2),
        Heading("3. Garden Plots", 1),
        Heading("4. Spring Fair", 1),
        Heading("5. Action Items", 1),
        Heading("6. Next Meeting", 1),
        Present(
            "Membership dues stay at 25 dollars a year. The county grant will pay for a new "
            "rainwater tank. Plot 17 goes to the primary school. The spring fair is on 26 April."
        ),
        Present(
            "Present were the chair, Rosa Delgado; the treasurer, Tom Okafor; the secretary, "
            "Hannah Weiss; and the plot representatives Imran Shah and Greta Lindqvist. "
            "Apologies were received from Paul Brennan, who is recovering from an operation "
            "and sends his good wishes to everyone."
        ),
        Present("Plots 31 and 44 go to the first two households on the waiting list."),
        Present(
            "Held on 12 February 2025 in the meeting room above the tool shed, beginning at "
            "seven in the evening and closing at twenty past nine."
        ),
        Before("Present were the chair", "The minutes of the January meeting were read"),
        Before("Sixty two of the sixty eight plot holders", "The county has approved a grant"),
        Before("Plot 17, next to the pond", "The waiting list will be reviewed in June"),
        Before("donate bread for the soup kitchen stand.", "5. Action Items"),
        Neighbour("A2", "right", "Write to the primary school about plot 17"),
        Neighbour("Hannah Weiss", "below", "Rosa Delgado"),
        Neighbour("28 February", "above", "15 March"),
        Neighbour("Who", "below", "Tom Okafor"),
        Neighbour("Plan the stalls for the spring fair", "right", "Greta Lindqvist"),
        Neighbour("1 March", "left", "Rosa Delgado"),
        Absent("Draft minutes, to be approved at the next meeting"),
    ]
    return _sample("garden_minutes", 2, checks)


def google_doc() -> Sample:
    """Real: a Google Docs export, one page: a title, twenty short lines, a picture beside
    them, a ruled table with cells spanning columns ("Europe" over four, "EUR" over three)
    and superscript note calls in its cells, and three footnotes at the page's foot (whose
    text the file holds in reverse order)."""
    path = CORPUS / "py-pdf__sample-files/011-google-doc-document/google-doc-document.pdf"
    checks: list[Check] = [
        Heading("Example document", 0),
        Present("Special cases aren't special enough to break the rules."),
        Present("There should be one-- and preferably only one --obvious way to do it."),
        Present("Although never is often better than *right* now."),
        Present("Namespaces are one honking great idea -- let's do more of those!"),
        Present("2021 estimate"),
        Before("Beautiful is better than ugly.", "Explicit is better than implicit."),
        Before("Flat is better than nested.", "Sparse is better than dense."),
        Before("If the implementation is hard to explain", "If the implementation is easy"),
        Before("let's do more of those!", "Jakarta"),
        Before("2021 estimate", "2020 estimate"),
        Neighbour("Capital", "right", "Jakarta"),
        Neighbour("Berlin", "right", "Vienna"),
        Neighbour("Paris", "right", "Vatican City"),
        Neighbour("Continent", "below", "Capital"),
        Neighbour("Currency", "below", "Population"),
        Neighbour("Jakarta", "above", "Asia"),
        Neighbour("Jakarta", "below", "Rupia"),
        Neighbour("Germany", "right", "Austria"),
        Neighbour("Vatican City", "below", "-"),
        Neighbour("67,413,000", "right", "453"),
    ]
    return Sample("real: google doc", path.read_bytes(), 1, checks)


def latex_outline() -> Sample:
    """Real: a pdfLaTeX article, four pages: a table of contents on page 1, then nine
    numbered sections whose names repeat (Foo, Bar, Baz), paragraphs across page breaks
    and bare page numbers. Its text repeats, so few passages are unique: the checks are
    mostly its headings."""
    path = CORPUS / "py-pdf__sample-files/006-pdflatex-outline/pdflatex-outline.pdf"
    names = ["Foo", "Bar", "Baz"] * 3
    checks: list[Check] = [
        Heading("Contents", 1),
        *[Heading(f"{n} {name}", 1) for n, name in enumerate(names, start=1)],
        Present("1 Foo 2 2 Bar 2 3 Baz 2 4 Foo 2 5 Bar 3"),
        Before("9 Baz 4", "Hello, here is some text without a meaning."),
        Present("the length of words should match the language. 5 4 Foo Hello"),
    ]
    return Sample("real: latex outline", path.read_bytes(), 4, checks)


MAKERS: list[Callable[[], Sample]] = [
    transport_review,
    coop_newsletter,
    pharmacy_tables,
    seed_register,
    library_footnotes,
    shuttle_landscape,
    garden_minutes,
    google_doc,
    latex_outline,
]


def held_out() -> list[Sample]:
    """Every held-out document with its hand-written checks."""
    return [make() for make in MAKERS]
