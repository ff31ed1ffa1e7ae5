"""The structure benchmark's printed tuning documents: six documents written as HTML and
printed to PDF by Chromium (make.py), each labelled by hand from its pages as they look.

They are tuning material, like the generated corpus and real.py: a reader may be shaped
by them. The held-out set (heldout/) is made apart from them and must stay so.

What they show, the way real printed documents do:
- rescue: a title over two lines, two justified columns with soft hyphens drawn where a
  line breaks inside a word, paragraphs running from column to column and page to page,
  a heading across both columns midway down a page with columns again below it, a ruled
  table (booktabs) inside a column, a running header and "Page n of m";
- observatory: three narrow columns, two headings across them, a paragraph from the last
  column of the first page to the first column of the next, a numbered list, and a
  centred "- n -" footer alone;
- guild: numbered headings at three levels (and "2 Membership" straight above "2.1
  Membership dues"), a floated box and a pull quote beside the text, footnotes at the
  foot of each page with superscript calls, a paragraph cut by a page break with two
  footnotes between its halves, bulleted, numbered and nested lists, an unruled table
  with generous padding;
- archive: a small logo as the running header, on the right; a ruled table with a cell of
  two lines, a table with spanned cells, and a register over three pages whose header row
  Chromium repeats on each;
- ferry: landscape pages, two wide timetables, a ruled table of fares with its numbers
  set right;
- orchard: a floated box and a floated pull quote the body text runs round, a nested
  list, a paragraph across a page break.

The PDFs are committed; `python -m tests.bench.structure.printed.make` prints them again
(it needs Debian's chromium). After regenerating, look at the pages again (`--png DIR`)
and check every label below against them: a line, column or page break that moves can
make a label wrong.
"""

from __future__ import annotations

from pathlib import Path

from tests.bench.structure.checks import Absent, Before, Check, Heading, Neighbour, Present
from tests.bench.structure.corpus import Sample

HERE = Path(__file__).resolve().parent


def _sample(name: str, pages: int, checks: list[Check]) -> Sample:
    return Sample(f"printed: {name}", (HERE / f"{name}.pdf").read_bytes(), pages, checks)


def _pages(count: int) -> list[Check]:
    return [Absent(f"Page {n} of {count}") for n in range(1, count + 1)]


def rescue() -> Sample:
    """Three pages in two columns. Page 1: the winter paragraph runs from the foot of the
    left column to the top of the right; the search dogs paragraph from the foot of the
    right column to the top of page 2. Page 2: Table 1 at the foot of the left column,
    "Working with Others" on the right, "Training and Equipment" across both, then
    columns; the members paragraph runs on to page 3."""
    return _sample(
        "rescue",
        3,
        [
            Heading(
                "Annual Report of the Glenmore Mountain Rescue Team to its Members and Supporters",
                0,
            ),
            Heading("The Year on the Hill", 1),
            Heading("Callouts", 1),
            Heading("Winter incidents", 2),
            Heading("Summer incidents", 2),
            Heading("Working with Others", 1),
            Heading("Training and Equipment", 1),
            Heading("Courses", 2),
            Heading("Vehicles and kit", 2),
            Heading("Accounts", 1),
            Heading("Looking Ahead", 1),
            Heading("Members and Thanks", 1),
            Heading("How to Support the Team", 1),
            Present(
                "the highest number since two shepherds and a village doctor founded it in 1968"
            ),
            Present("passes it to our duty coordinator, who decides within minutes how many"),
            Present(
                "Two were climbers benighted on the north face, both located by the light of "
                "their head torches and lowered to the corrie floor in the early hours."
            ),
            Present(
                "The team's two dogs, a collie called Bracken and a younger spaniel called Moss, "
                "between them cleared more than forty square kilometres of hillside this year."
            ),
            Present("Two members now carry electrolyte tablets and spare water in the vehicle"),
            Present("Every member renewed the casualty care certificate this year"),
            Present(
                "never once, as far as anyone can remember, turned down a request to go out, "
                "whatever the hour or the weather."
            ),
            Absent("Glenmore MRT Annual Report 2024"),
            *_pages(3),
            Before(
                "both located by the light of their head torches",
                "and lowered to the corrie floor in the early hours",
            ),
            Before("Heat was a new concern.", "other teams had already checked twice."),
            Before("Table 1: Requests for help", "Four times this year we were asked to help"),
            Before("we intend to host more of them.", "Training and Equipment"),
            Before("a heated tent for long evacuations", "Income for the year came to"),
            Before("The team now has 38 operational members", "Finally, our thanks go to everyone"),
            Before("handed to any member at the base.", "Above all, the best support"),
            Neighbour("Lost or benighted", "right", "4"),
            Neighbour("19", "left", "7"),
            Neighbour("Illness", "below", "Cragfast"),
            Neighbour("Total", "below", "31"),
        ],
    )


def observatory() -> Sample:
    """Two pages in three columns, no header, "- n -" below. Page 1: "Members' Observing
    Reports" across the columns under the first rows; the aurora paragraph ends at the top
    of page 2's left column. Page 2: "Dates and Bookings" across the columns."""
    return _sample(
        "observatory",
        2,
        [
            Heading("Harrowfield Observatory Bulletin", 0),
            Heading("From the Director", 1),
            Heading("The New Mount", 1),
            Heading("Members' Observing Reports", 1),
            Heading("Jupiter at opposition", 2),
            Heading("The Sun", 2),
            Heading("A faint comet", 2),
            Heading("Double stars", 2),
            Heading("Variable stars", 2),
            Heading("A lunar occultation", 2),
            Heading("Aurora", 2),
            Heading("Meteors", 2),
            Heading("Dates and Bookings", 1),
            Heading("Annual lecture", 2),
            Heading("Notes from the Committee", 1),
            Present("The dome was opened on 42 clear nights between April and September"),
            Present(
                "Over eight hundred people climbed the spiral stair to look through the "
                "refractor, and many stayed long after closing to ask about the planets"
            ),
            Present(
                "The new mount tracks the sky with an electric motor and can point the "
                "telescope at any catalogued object in under a minute."
            ),
            Present("the national association has asked to include them in its archive"),
            Present("The timings have been sent to the international centre that collects them"),
            Present(
                "Members are asked to report any future sightings to the secretary, with the "
                "time, the direction and the colours of the display."
            ),
            Absent("- 1 -"),
            Absent("- 2 -"),
            Before("begun to rust along its lower runner.", "After three years of fundraising"),
            Before("pole star sharp and steady in the finder.", "Members' Observing Reports"),
            Before("Stacked exposures show a short tail", "Members who wish to try imaging"),
            Before("measurements of neglected pairs next year.", "The variable star group"),
            Before("sent to the county newspaper.", "Cloud spoiled the August shower"),
            Before("with a hired minibus.", "Dates and Bookings"),
            Before("Return the key and sign the log book", "This year's annual lecture"),
            Before("borrowed for up to four weeks", "Notes from the Committee"),
        ],
    )


def guild() -> Sample:
    """Three pages of one column, each with its footnotes at its foot. Page 1 ends in the
    middle of a sentence ("... a long illness.2 A"), footnotes 1 and 2 under it; page 2
    begins "member whose dues remain unpaid". A shaded box stands right of the first
    paragraphs on page 1 and beside the second paragraph of section 5 on page 3; the pull
    quote is under 3.2 on page 2."""
    return _sample(
        "guild",
        3,
        [
            Heading("Members' Handbook of the Ashcombe Guild of Bakers", 0),
            Heading("1 About the Guild", 1),
            Heading("1.1 Our charter", 2),
            Heading("2 Membership", 1),
            Heading("2.1 Membership dues", 2),
            Heading("2.2 Leaving the Guild", 2),
            Heading("3 The Bread Fair", 1),
            Heading("3.1 Stalls", 2),
            Heading("3.1.1 Ovens on the green", 3),
            Heading("3.2 Judging", 2),
            Heading("4 Apprentices", 1),
            Heading("5 The Common Fund", 1),
            Present("There are 212 members in 64 bakeries and nine apprentices in training."),
            Present("Write to the warden, or speak to either deputy after an assembly."),
            Present(
                "Bread is the first thing a town makes each morning and the last thing it forgets."
            ),
            Present(
                "The mill stood on the river below the old bridge until 1931, when it was "
                "converted into houses."
            ),
            Present(
                "The common fund may also pay a member's dues for up to two years after a fire."
            ),
            Present("If the green is waterlogged, the fair moves to the covered market hall."),
            Present(
                "A member whose dues remain unpaid for a full year without any arrangement is "
                "treated as having resigned"
            ),
            Present("at least one loaf baked to a recipe from the Guild's book"),
            Present("Table 1: Yearly dues by grade of membership"),
            Absent("Ashcombe Bakers: Handbook for Members"),
            *_pages(3),
            Before("lose their ovens to fire.", "The Guild is not a trade union"),
            Before("The Ashcombe Guild of Bakers brings together", "The mill stood on the river"),
            Before("or a long illness.", "arrears, provided that the warden agrees"),
            Before("The common fund may also pay a member's dues", "2.2 Leaving the Guild"),
            Before("A float of change and a receipt book", "3.1.1 Ovens on the green"),
            Before("returned to the Guild the following summer.", "If the green is waterlogged"),
            Before("the total paid.", "Grants are not loans and need not be repaid"),
            Neighbour("Master baker", "right", "180"),
            Neighbour("240", "right", "64"),
            Neighbour("Journeyman", "above", "Bakery owner"),
            Neighbour("12", "below", "20"),
        ],
    )


def archive() -> Sample:
    """Four pages; a dark "HCA" mark and "Records for Everyone" at the top right of each.
    Tables 1 and 2 on page 1 (Table 2's site and shelving headers spanned); Table 3 from
    the top of page 2 to page 4, its header row on each page, rows 2024/001-039 on page 2,
    040-083 on page 3, 084-100 on page 4."""
    return _sample(
        "archive",
        4,
        [
            Heading(
                "Halwick County Archive: Report on Accessions and the Reading Room for the "
                "Year 2024",
                0,
            ),
            Heading("Introduction", 1),
            Heading("The Reading Room", 1),
            Heading("Strongrooms", 1),
            Heading("Accessions", 1),
            Heading("Notable deposits", 2),
            Heading("The register", 2),
            Present("Table 2: Shelving in the strongrooms, in metres"),
            Present("Table 3: Register of accessions received in 2024"),
            Present(
                "A family in the north of the county gave the letters of a sea captain who "
                "wrote to his wife from every port between Valparaiso and Yokohama."
            ),
            Present("The archive is grateful to everyone who entrusted records to its care"),
            Absent("Records for Everyone"),
            *_pages(4),
            Before("Table 1: Use of the reading room", "The archive now stores its collections"),
            Before("before they could be listed.", "The register below lists every accession"),
            Before("2024/039", "2024/040"),
            Before("2024/083", "2024/084"),
            Before("Letters of the Petty Sessions", "Depositors who wish to add"),
            Neighbour("January to March", "right", "412"),
            Neighbour("288", "right", "Closed for two weeks for the annual stocktake"),
            Neighbour("Summer school for history students", "above", "Evening openings began"),
            Neighbour("Remote enquiries", "below", "288"),
            Neighbour("Strongroom A", "right", "640"),
            Neighbour("598", "below", "402"),
            Neighbour("Map room", "below", "Strongroom D"),
            Neighbour("2024/057", "below", "2024/058"),
            Neighbour("Letters of a sea captain", "left", "19 Jul"),
            Neighbour("2024/091", "right", "22 Nov"),
        ],
    )


def ferry() -> Sample:
    """Two landscape pages: the introduction in two columns and both timetables (sailings
    across, piers down) on page 1; the fares, notes and Sunday sailings on page 2."""
    return _sample(
        "ferry",
        2,
        [
            Heading("Kelsay Sound Ferries: Summer Timetable 2025", 0),
            Heading("Outward Sailings", 1),
            Heading("Return Sailings", 1),
            Heading("Fares", 1),
            Heading("Notes for Passengers", 1),
            Heading("Sunday Sailings", 1),
            Present(
                "Please tell the purser before the ship leaves Kelsay if you wish to land at Rona"
            ),
            Present("Table 1: Monday to Saturday sailings from Portmore to Ardvane"),
            Present("Table 3: Single fares in pounds"),
            Absent("Kelsay Sound Ferries, valid 1 May to 30 September 2025"),
            *_pages(2),
            Before("shown on the boards at every pier.", "The Rona call is made only when"),
            Before("Table 2: Monday to Saturday sailings", "Fares are charged for each single"),
            Before("Passengers who need help to board", "On Sundays the ship makes two"),
            Neighbour("K101", "below", "06:10"),
            Neighbour("Portmore depart", "right", "06:10"),
            Neighbour("13:39", "above", "13:30"),
            Neighbour("21:08", "left", "19:47"),
            Neighbour("K110", "below", "12:13"),
            Neighbour("Portmore arrive", "right", "08:20"),
            Neighbour("17:18", "left", "16:00"),
            Neighbour("Adult", "right", "6.40"),
            Neighbour("47.90", "below", "23.80"),
            Neighbour("Motorcycle and rider", "above", "Car and driver"),
        ],
    )


def orchard() -> Sample:
    """Two pages of one column: a boxed list of dates floated right beside the first
    paragraphs, a pull quote floated left beside the scab paragraph; the paragraph after
    the list runs from the foot of page 1 to the top of page 2."""
    return _sample(
        "orchard",
        2,
        [
            Heading("Tarnside Community Orchard Newsletter", 0),
            Heading("Harvest Report", 1),
            Heading("Apples", 2),
            Heading("Pears and quinces", 2),
            Heading("Volunteer Days", 1),
            Heading("Pruning Course", 1),
            Heading("Tree Sponsors", 1),
            Present("Wassail by lantern light on the seventeenth of January."),
            Present(
                "We picked more fruit this year than in the orchard's first five years together."
            ),
            Present(
                "By the end of September the old cider trees along the north hedge were so "
                "heavily laden that several branches had to be propped with forked poles."
            ),
            Present("Last winter our youngest helper was four years old and planted a damson tree"),
            Present("laying the overgrown stretch by the gate"),
            Absent("Tarnside Orchard News, Autumn"),
            *_pages(2),
            Before("propped with forked poles.", "Volunteers picked on five Saturday mornings"),
            Before("came back the following week to ask for more.", "The scab that troubled"),
            Before("Clearing brambles from the pond margin", "Please wear stout boots"),
            Before("Please wear stout boots", "Our head gardener will run a pruning course"),
        ],
    )


MAKERS = [rescue, observatory, guild, archive, ferry, orchard]


def tuned() -> list[Sample]:
    return [make() for make in MAKERS]
