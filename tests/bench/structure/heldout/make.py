"""Regenerate the held-out structure corpus: `python -m tests.bench.structure.heldout.make`.

Each document below is HTML written by hand, printed to PDF by Debian's chromium through
Playwright (never a downloaded browser): $CHROMIUM_PATH, else `chromium` on PATH. The
PDFs are committed next to this file, so the benchmark needs no browser; this script is
only for making them again. The checks in __init__.py were written from this HTML and from
the printed pages, so a document changed here needs its checks looked at again: a page or
column break that moves changes which passages are split. Fonts are named (DejaVu, which
Debian's chromium brings), so another machine's defaults do not change the layout.

`--png DIR` also renders every page to DIR, for labelling by eye; `--only NAME` makes one.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Document:
    name: str
    html: str
    header: str = ""  # the running header's text, if any
    footer: str = ""  # the footer's HTML: may hold pageNumber and totalPages spans
    landscape: bool = False
    options: dict[str, object] = field(default_factory=dict)


def page(title: str, css: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{css}</style></head><body>{body}</body></html>"
    )


def table(rows: Sequence[Sequence[str]], caption: str = "", head: int = 1) -> str:
    """A table; its first `head` rows in <thead>. A cell written "<td ...>...</td>" or
    "<th ...>...</th>" is kept as it is (for spans); any other is wrapped."""

    def cell(text: str, tag: str) -> str:
        return text if text.startswith(("<td", "<th")) else f"<{tag}>{text}</{tag}>"

    parts = ["<table>"]
    if caption:
        parts.append(f"<caption>{caption}</caption>")
    parts.append("<thead>")
    for row in rows[:head]:
        parts.append("<tr>" + "".join(cell(text, "th") for text in row) + "</tr>")
    parts.append("</thead><tbody>")
    for row in rows[head:]:
        parts.append("<tr>" + "".join(cell(text, "td") for text in row) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def centred(text: str) -> str:
    return (
        "<div style=\"font-family: 'DejaVu Sans'; font-size: 8px; color: #555; width: 100%; "
        f'text-align: center; margin: 0 18mm;">{text}</div>'
    )


PAGE_OF = 'Page <span class="pageNumber"></span> of <span class="totalPages"></span>'


# 1. A report: three heading levels, lists, running header and footer, a long paragraph
# across a page break.

REPORT_CSS = """
body { font-family: 'DejaVu Serif'; font-size: 10.5pt; line-height: 1.45; }
h1 { font-family: 'DejaVu Sans'; font-size: 21pt; margin: 0 0 4pt; }
h2 { font-family: 'DejaVu Sans'; font-size: 14pt; margin: 16pt 0 6pt; }
h3 { font-family: 'DejaVu Sans'; font-size: 11.5pt; font-style: italic; margin: 12pt 0 4pt; }
h2, h3 { break-after: avoid; }
p { margin: 0 0 8pt; text-align: justify; }
p.lead { color: #444; font-style: italic; margin-bottom: 14pt; }
li { margin-bottom: 3pt; }
"""

REPORT = page(
    "Annual Transport Review 2024-25",
    REPORT_CSS,
    """
<h1>Annual Transport Review 2024-25</h1>
<p class="lead">Prepared by the transport office for the board of education, September 2025.</p>
<h2>Summary</h2>
<p>This review describes how the district carried its pupils to school and home again during
the 2024-25 year: the routes it ran, the buses it kept on the road, the drivers it hired and
lost, and what all of it cost. Ridership rose for the second year in a row, while the number
of drivers on the payroll fell by four.</p>
<p>Three findings stand out. Late arrivals at the two middle schools fell by almost half once
their bell times moved twenty minutes later. The oldest diesel buses now cost more to keep
running than they would cost to replace. And families in the eastern hills still wait longer
at their stops than anyone else in the district, often in the dark during the winter
months.</p>
<h2>Ridership</h2>
<p>Each bus carries a tablet on which the driver taps a pupil's card as the pupil climbs
aboard. The figures in this section come from those taps, checked against the paper logs kept
on the four routes where the tablets failed for more than a week at a time.</p>
<ul>
<li>Elementary routes carried an average of 2,140 pupils a day, up from 1,985.</li>
<li>Middle school routes carried 1,310 pupils a day, the same as last year.</li>
<li>High school routes carried 1,065 pupils a day, a small fall as more seniors drove
themselves.</li>
</ul>
<h3>Morning routes</h3>
<p>Morning loads peak between 7:10 and 7:40, when the high school and the elementary runs
overlap. On eleven routes the bus was more than nine tenths full on an average morning, and on
Route 9 drivers twice had to leave pupils at a stop for a second bus to collect.</p>
<h3>Afternoon routes</h3>
<p>Afternoon loads are lighter and more spread out, because clubs, sports and detention keep
many older pupils at school past the final bell. The transport office made three changes to
the afternoon timetable during the year:</p>
<ol>
<li>Route 14 was split in two so that no pupil rides for more than fifty minutes.</li>
<li>Route 22 now stops at the new apartments on Alder Lane.</li>
<li>The late activity bus leaves the high school at 5:15 instead of 4:45.</li>
</ol>
<h2>Fleet and Maintenance</h2>
<p>The district owns sixty-one buses, of which fifty-four are needed on an ordinary school
day; the other seven are spares that cover for breakdowns, inspections, driver training and
field trips. The
average bus is now nine years old, but that average hides a wide spread, because twelve buses
bought in a single order in 2011 are approaching the end of their useful lives all at once.
Those twelve buses spent a combined 214 days in the workshop this year, against 96 days for
the rest of the fleet put together, and on nineteen mornings the transport office had no spare
bus left to send when one of them would not start. Mechanics report that parts for the 2011
engines now take up to three weeks to arrive, since the maker stopped producing them, and that
two of the buses have rust in their floor frames that can be patched but not properly
repaired. The workshop itself is also under strain: it has four bays, it was built when the
fleet was half its present size, and in the coldest weeks of January the mechanics worked on
buses parked outside under floodlights because every bay was already taken. None of this has
yet made a bus unsafe to drive, and every bus passed its annual state inspection in August,
but the margin is thinner than it has been at any time in the past decade, and a hard winter
could leave the district short of buses on the routes that can least afford a late
pickup.</p>
<h3>Electric buses</h3>
<p>The four electric buses that arrived in the spring have run without a single breakdown so
far. Their range of roughly 190 kilometres is enough for any of our routes, though not for the
longest field trips. Charging them overnight added about 1,900 dollars a month to the
electricity bill, far less than the diesel they replaced.</p>
<h3>Repairs and inspections</h3>
<p>Brake and suspension work made up most of the repair hours, as it does every year. The
number of buses taken off the road after a driver's morning check fell from 58 to 41, which
the workshop credits to the new habit of greasing the steering joints every month instead of
every term.</p>
<h2>Drivers</h2>
<p>The district employed 57 drivers at the end of the year, four fewer than a year earlier.
Nine drivers retired or left, and only five new drivers finished their training. Every vacancy
was covered, but often by an office worker with a bus licence, or by a mechanic who then could
not spend that morning in the workshop.</p>
<p>Exit interviews point to the split shift as the main reason drivers leave: a driver works
from six until nine in the morning and from two until five in the afternoon, and is paid for
neither the gap nor the drive home and back in between.</p>
<h2>Costs</h2>
<p>Transport cost the district 6.8 million dollars, or about 1,510 dollars for each pupil who
rode a bus on an average day. Wages and benefits made up 61 percent of that total, fuel and
electricity 14 percent, repairs and parts 12 percent and insurance most of the rest. The state
refunded 2.3 million dollars under its transport grant, some 200,000 dollars more than last
year.</p>
<h2>Recommendations</h2>
<ol>
<li>Replace the twelve buses bought in 2011 over the next two years, starting with the six
that have spent the most days in the workshop.</li>
<li>Offer drivers a paid midday duty, such as supervising lunch, so that the split shift
becomes one working day.</li>
<li>Add a second morning run in the eastern hills so that no pupil waits at a stop before
6:50.</li>
<li>Study whether a fifth workshop bay can be built on the land behind the fuel tanks.</li>
</ol>
""",
)


# 2. A newsletter: two columns, then three narrow ones with soft hyphens, under headings
# that span them; an unruled table of dates.

NEWSLETTER_CSS = """
body { font-family: 'DejaVu Sans'; font-size: 9.5pt; line-height: 1.4; }
h1 { font-family: 'DejaVu Serif'; font-size: 30pt; margin: 0; letter-spacing: 1pt; }
p.masthead { border-bottom: 2px solid #000; padding-bottom: 4pt; margin: 2pt 0 10pt; }
h2 { font-family: 'DejaVu Serif'; font-size: 15pt; margin: 12pt 0 6pt;
     border-bottom: 1px solid #888; }
h3 { font-size: 10.5pt; margin: 8pt 0 3pt; break-after: avoid; }
h3:first-child { margin-top: 0; }
p { margin: 0 0 6pt; text-align: justify; }
.two { column-count: 2; column-gap: 9mm; }
h2.next { break-before: page; }
.three { column-count: 3; column-gap: 6mm; column-rule: 1px solid #bbb; font-size: 9pt; }
.three p { text-align: justify; }
table { border-collapse: separate; border-spacing: 0; margin-top: 4pt; }
th { text-align: left; font-weight: bold; padding: 2pt 22pt 4pt 0; }
td { padding: 2pt 22pt 2pt 0; vertical-align: top; }
"""

NEWSLETTER = page(
    "The Spoke Sheet",
    NEWSLETTER_CSS,
    """
<h1>The Spoke Sheet</h1>
<p class="masthead">Newsletter of the Eastside Bicycle Co-op. Spring issue, free to
members.</p>
<h2>News from the Workshop</h2>
<div class="two">
<h3>New opening hours</h3>
<p>From the first of April the workshop opens on Tuesday and Thursday evenings from six until
nine, and on Saturdays from ten until four. The Sunday morning session for beginners moves to
the second Sunday of each month, because so few people came on the others. Please check the
board by the gate before you set out on a bank holiday, when the hours may change.</p>
<p>Members can still book the truing stand and the frame alignment table for an hour at a
time. Bookings go in the paper diary by the door, as they always have; the online calendar we
tried last autumn confused more people than it helped.</p>
<h3>The tool library</h3>
<p>Thanks to a grant from the neighbourhood fund, the tool library now lends out a bottom
bracket press, two chain wear gauges and a complete set of cone spanners. Tools go out for a
week at most and come back clean. Please write your name and the date on the card in the
tool's pocket, and tell a volunteer if something is missing or bent.</p>
<p>Last year we lost a torque wrench and three pedal spanners. We would rather not buy them
again, so if one of them is sitting in your shed, it can be dropped through the letterbox, no
questions asked.</p>
<h3>Bikes for the refugee centre</h3>
<p>Over the winter our Wednesday crew rebuilt thirty one bicycles for families at the refugee
centre on Canal Street. Each bike went out with lights, a lock, a helmet and a short lesson on
the rules of the road, given by volunteers who between them speak six languages.</p>
<p>The centre has asked for twenty more before the summer, mostly small frames for teenagers.
If you have a bicycle you no longer ride, bring it along on a Saturday; even a bike that looks
past saving usually gives us a wheel, a saddle or a set of brakes.</p>
<h3>The winter ride</h3>
<p>Fourteen riders turned out for the New Year ride along the old railway path, in spite of a
frost that turned the first mile into a skating rink. Nobody fell off, though two riders
walked the slope down to the viaduct, and the cafe at the far end opened an hour early for
us.</p>
<p>The route was a little over twenty kilometres there and back, flat enough for the younger
riders and the one tandem. We plan to ride it again in the autumn, when the path is dry and
the hedges are full of blackberries.</p>
</div>
<h2 class="next">Volunteer Corner</h2>
<div class="three">
<p>Volunteers are the reason the co&shy;operative exists. Nobody here is paid, and every
repair, every lesson and every cup of tea is the work of someone who gave up an evening to be
here.</p>
<p>New volunteers start with an in&shy;tro&shy;duc&shy;tory morning on a Saturday, where they
learn how the workshop is or&shy;gan&shy;ised, where the spare parts are kept and how to
explain a repair to a member without doing it for them.</p>
<p>After that, you choose what suits you. Some volunteers help with wheel&shy;build&shy;ing,
others with brake and gear ad&shy;just&shy;ments, and a few prefer to keep the parts shelves
in order, which is harder than it sounds.</p>
<p>We especially need people who can staff the front desk on Thursday evenings, and anyone
with ex&shy;pe&shy;ri&shy;ence of book&shy;keep&shy;ing who could help the treasurer for a
few hours a month.</p>
<p>Teenagers are welcome as volunteers from the age of fourteen, with a signed note from a
parent. Several of our best mechanics started that way, and one of them now teaches the
Tuesday class on hy&shy;draulic brakes and sus&shy;pen&shy;sion forks.</p>
<p>Volunteers may use the workshop and its tools for their own bicycles outside opening
hours, once they have been with us for three months. We ask only that you sign the book, leave
the benches tidy and put the kettle back where you found it.</p>
<p>Once a year we thank our volunteers with a supper in the community hall. Last year's was
cooked by the Thursday crew and included a cake in the shape of a chain&shy;ring, which
dis&shy;ap&shy;peared in about four minutes.</p>
<p>To sign up, talk to anyone in a green apron, or leave a note with your name and
tele&shy;phone number in the box marked volunteers by the workshop door.</p>
</div>
<h2>Dates for the Diary</h2>
<table>
<thead><tr><th>Date</th><th>Event</th><th>Where</th></tr></thead>
<tbody>
<tr><td>5 April</td><td>Spring clean of the workshop</td><td>Workshop yard</td></tr>
<tr><td>19 April</td><td>Puncture repair class for children</td><td>Community hall</td></tr>
<tr><td>3 May</td><td>Members' ride to the reservoir</td><td>Meet at the library</td></tr>
<tr><td>17 May</td><td>Annual general meeting</td><td>Community hall</td></tr>
<tr><td>7 June</td><td>Secondhand bike sale</td><td>Market square</td></tr>
</tbody>
</table>
""",
)


# 3. Tables: ruled, spanned, unruled, ruled across only (top, under the header, bottom).

PHARMACY_CSS = """
body { font-family: 'DejaVu Sans'; font-size: 9.5pt; line-height: 1.4; }
h1 { font-size: 18pt; margin: 0 0 8pt; }
h2 { font-size: 12.5pt; margin: 14pt 0 6pt; }
p { margin: 0 0 7pt; }
table { margin: 4pt 0 10pt; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: 4pt; }
table.ruled { border-collapse: collapse; }
table.ruled th, table.ruled td { border: 1px solid #000; padding: 3pt 7pt; }
table.ruled th { background: #e8e8e8; }
table.plain { border-collapse: separate; border-spacing: 0; }
table.plain th { text-align: left; padding: 2pt 28pt 3pt 0; }
table.plain td { padding: 2pt 28pt 2pt 0; }
table.rules { border-collapse: collapse; border-top: 1.5px solid #000;
              border-bottom: 1.5px solid #000; }
table.rules thead tr { border-bottom: 1px solid #000; }
table.rules th, table.rules td { padding: 3pt 14pt 3pt 0; text-align: left; }
td.n, th.n { text-align: right; }
"""

SPANNED = """
<table class="ruled">
<caption>Table 2: Doses dispensed and returned, by ward and month</caption>
<thead>
<tr><th rowspan="2">Ward</th><th rowspan="2">Medicine</th><th colspan="3">Doses dispensed</th>
<th rowspan="2">Returned unused</th></tr>
<tr><th>January</th><th>February</th><th>March</th></tr>
</thead>
<tbody>
<tr><td rowspan="3">Cardiology</td><td>Apixaban</td><td class="n">412</td><td class="n">398</td>
<td class="n">430</td><td class="n">6</td></tr>
<tr><td>Bisoprolol</td><td class="n">530</td><td class="n">547</td><td class="n">521</td>
<td class="n">9</td></tr>
<tr><td>Furosemide</td><td class="n">264</td><td class="n">251</td><td class="n">287</td>
<td class="n">15</td></tr>
<tr><td rowspan="2">Paediatrics</td><td>Amoxicillin</td><td class="n">288</td>
<td class="n">301</td><td class="n">276</td><td class="n">14</td></tr>
<tr><td>Paracetamol</td><td class="n">615</td><td class="n">640</td><td class="n">602</td>
<td class="n">21</td></tr>
<tr><td rowspan="2">Surgery</td><td>Ondansetron</td><td class="n">377</td><td class="n">359</td>
<td class="n">394</td><td class="n">11</td></tr>
<tr><td>Morphine sulfate</td><td class="n">143</td><td class="n">156</td><td class="n">149</td>
<td class="n">3</td></tr>
</tbody>
</table>
"""

PHARMACY = page(
    "Pharmacy Dispensing Report",
    PHARMACY_CSS,
    f"""
<h1>Pharmacy Dispensing Report, January to March</h1>
<p>This report sets out the state of the pharmacy's stock at the end of the first quarter, how
many doses each ward received, what came back unused and how long prescriptions waited before
they were filled. All figures come from the dispensing system and were checked by hand against
the controlled drugs register where that applies.</p>
<h2>Stock on Hand</h2>
<p>The table below lists the medicines whose stock fell close to, or below, the level at which
the pharmacy places a new order with its wholesaler.</p>
<table class="ruled">
<caption>Table 1: Stock of selected medicines on 31 March</caption>
<thead><tr><th>Medicine</th><th>Form</th><th>Strength</th><th>Units in stock</th>
<th>Reorder level</th></tr></thead>
<tbody>
<tr><td>Amoxicillin</td><td>Capsule</td><td>500 mg</td><td class="n">1,840</td>
<td class="n">2,000</td></tr>
<tr><td>Apixaban</td><td>Tablet</td><td>5 mg</td><td class="n">3,150</td>
<td class="n">2,500</td></tr>
<tr><td>Furosemide</td><td>Injection</td><td>20 mg in 2 ml</td><td class="n">96</td>
<td class="n">120</td></tr>
<tr><td>Insulin glargine</td><td>Pen</td><td>100 units/ml</td><td class="n">210</td>
<td class="n">150</td></tr>
<tr><td>Morphine sulfate</td><td>Oral solution</td><td>10 mg in 5 ml</td><td class="n">34</td>
<td class="n">40</td></tr>
<tr><td>Ondansetron</td><td>Tablet</td><td>4 mg</td><td class="n">720</td>
<td class="n">600</td></tr>
</tbody>
</table>
<p>Amoxicillin, furosemide and the morphine solution are below their reorder levels; orders for
all three were placed on the first working day of April.</p>
<h2>Dispensing by Ward</h2>
<p>Three wards account for most of the doses that leave the pharmacy. Their figures are shown
month by month, with the doses sent back unused over the whole quarter.</p>
{SPANNED}
<h2>Returns and Waste</h2>
<p>Seventy-nine doses came back to the pharmacy unused. Most of them could be put back into
stock; the damaged ones were destroyed.</p>
<p><i>Table 3: Doses returned to the pharmacy, by reason</i></p>
<table class="plain">
<thead><tr><th>Reason</th><th>Doses</th><th>Share of returns</th></tr></thead>
<tbody>
<tr><td>Patient discharged</td><td>38</td><td>48%</td></tr>
<tr><td>Dose changed</td><td>19</td><td>24%</td></tr>
<tr><td>Medicine stopped</td><td>12</td><td>15%</td></tr>
<tr><td>Patient refused</td><td>6</td><td>8%</td></tr>
<tr><td>Damaged packaging</td><td>4</td><td>5%</td></tr>
</tbody>
</table>
<h2>Turnaround Times</h2>
<p>A prescription's turnaround is the time from its arrival in the pharmacy to the moment the
medicine is handed to a porter or a nurse.</p>
<table class="rules">
<caption>Table 4: Minutes from prescription to dispensing, by time of day</caption>
<thead><tr><th>Time of day</th><th>Prescriptions</th><th>Median minutes</th>
<th>Longest wait</th></tr></thead>
<tbody>
<tr><td>Morning, 8 to 12</td><td>1,204</td><td>22</td><td>95</td></tr>
<tr><td>Afternoon, 12 to 17</td><td>986</td><td>31</td><td>140</td></tr>
<tr><td>Evening, 17 to 22</td><td>433</td><td>18</td><td>64</td></tr>
<tr><td>Night, 22 to 8</td><td>205</td><td>13</td><td>47</td></tr>
</tbody>
</table>
<p>Evening and night prescriptions wait less because fewer arrive at once, although the single
pharmacist on duty at night also answers the telephone for every ward.</p>
""",
)


# 4. A long table over pages, its <thead> repeated by chromium on each page.

CROPS = ["Bean", "Tomato", "Squash", "Lettuce", "Pea", "Kale", "Maize", "Pepper", "Onion"]
FIRST = ["Copper", "Grey", "Long", "Winter", "Miller's", "Red", "Early", "Little", "Hollow"]
SECOND = ["Lantern", "Heron", "Meadow", "Sparrow", "Pride", "Button", "Ridge", "Bell", "Creek"]


def accessions() -> list[tuple[str, str, str, str, str, str]]:
    """The register's rows, picked by a seeded generator: every run makes the same ones."""
    pick = random.Random(2025)
    rows = []
    for n in range(100):
        variety = f"{pick.choice(FIRST)} {pick.choice(SECOND)}"
        rows.append(
            (
                f"HC-{101 + n:04d}",
                pick.choice(CROPS),
                variety,
                str(pick.randint(2014, 2024)),
                str(pick.randint(8, 95) * 5),
                f"{pick.randint(52, 99)}%",
            )
        )
    return rows


SEEDS_CSS = """
body { font-family: 'DejaVu Sans'; font-size: 9.5pt; line-height: 1.35; }
h1 { font-size: 17pt; margin: 0 0 8pt; }
h2 { font-size: 12.5pt; margin: 14pt 0 6pt; }
p { margin: 0 0 7pt; }
p.caption { font-weight: bold; margin-top: 10pt; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #666; padding: 2.5pt 6pt; text-align: left; }
th { background: #dfe9df; }
tr { break-inside: avoid; }
"""


def seeds_html() -> str:
    rows = [("Accession", "Crop", "Variety", "Harvest year", "Grams", "Germination")]
    rows += accessions()
    return page(
        "Accession Register",
        SEEDS_CSS,
        f"""
<h1>Hollow Creek Seed Library: Accession Register</h1>
<p>Every lot of seed the library holds has an accession number, given when the seed first
comes in and never used again. The register below lists the lots on the shelves on 1 March
2025, with the year the seed was harvested, the weight left in the jar and the share of seeds
that sprouted in the most recent germination test.</p>
<p class="caption">Table 1: Seed lots held on 1 March 2025, by accession number</p>
{table(rows)}
<h2>Notes on the Register</h2>
<p>Lots whose germination fell below seventy percent are set aside for regrowing this summer,
so that fresh seed can replace them before they are lost. Members who take seed from one of
those lots are asked to return a share of their harvest.</p>
""",
    )


# 5. Footnotes at each page's foot, under a paragraph that runs on to the next page. The
# pages are laid out by hand (fixed height, footnotes pinned to the bottom).

LIBRARY_CSS = """
body { font-family: 'DejaVu Serif'; font-size: 11pt; line-height: 1.5; margin: 0; }
.sheet { height: 246mm; position: relative; break-after: page; overflow: hidden; }
.sheet:last-child { break-after: auto; }
h1 { font-size: 19pt; line-height: 1.25; margin: 0 0 6pt; }
p.byline { font-style: italic; margin: 0 0 12pt; }
h2 { font-family: 'DejaVu Sans'; font-size: 13pt; margin: 14pt 0 6pt; }
p { margin: 0 0 9pt; text-align: justify; }
sup { font-size: 7pt; line-height: 0; }
p.runs-on { margin-bottom: 0; text-align-last: justify; }
.notes { position: absolute; bottom: 0; left: 0; right: 0; font-size: 8pt; line-height: 1.35; }
.notes hr { width: 35%; margin: 0 0 4pt; border: 0; border-top: 1px solid #000; }
.notes p { margin: 0 0 2pt; text-align: left; }
"""

LIBRARY = page(
    "A Hundred Years of Borrowing",
    LIBRARY_CSS,
    """
<div class="sheet">
<h1>A Hundred Years of Borrowing: The Millbrook Lending Library</h1>
<p class="byline">Written for the centenary by the library's volunteer archivists</p>
<h2>Beginnings</h2>
<p>The library began in the back room of a hardware shop on Mill Street, where the owner, a
widower named Arthur Pell, kept a shelf of novels that customers could borrow for a penny a
week.<sup>1</sup> By the spring of 1925 the shelf had become three bookcases, and a group of
regular borrowers formed a committee to run the collection as a proper lending library.</p>
<p>The committee met on the first Monday of each month, kept careful minutes and charged a
subscription of two shillings a year. Its first purchase was a set of encyclopaedias, bought
secondhand from a school that was closing, and its second was a stove, because the back room
was so cold that borrowers would not stay long enough to choose their books.<sup>2</sup></p>
<h2>A Building of Its Own</h2>
<p>In 1931 the town council offered the committee the old weighing house by the river, on
condition that the library opened to everyone in the parish, whether or not they paid the
subscription. The committee agreed after a long argument, and the first free tickets were
issued that September.<sup>3</sup></p>
<p>Not everyone was pleased. Two members of the committee resigned, saying that a free library
would fill up with idlers and that the books would come back torn, and a letter to the local
paper warned that the damp air by the river would ruin the bindings. Neither fear came true,
and one of the two members asked to rejoin within a year.</p>
<p class="runs-on">Moving the books took a week of evenings. Volunteers carried them in laundry
baskets along the towpath, and the river board lent a cart for the heavy cases. The new reading
room had tall windows facing the water, a fireplace at each end and enough shelving for six
thousand volumes, which seemed far more than the library would ever need. Within ten years the
shelves were full, and the committee began to talk about adding an upper floor, although nobody
could say where the money for it</p>
<div class="notes"><hr>
<p>1 Pell's shop ledger survives in the county record office and lists the names of the
borrowers in its first year.</p>
<p>2 The stove cost eleven shillings and was still in use, in the children's corner, until
1962.</p>
<p>3 Ninety four tickets were issued in the first month, more than the committee had dared to
hope for.</p>
</div>
</div>
<div class="sheet">
<p>would come from. In the end it came from a bequest left by a retired schoolteacher, who
asked only that the new floor be kept for children.</p>
<h2>War and After</h2>
<p>During the war the library stayed open on two evenings a week, run almost entirely by pupils
from the grammar school.<sup>4</sup> Blackout curtains were sewn from old theatre drapes, and
the reading room became a place where families waited for news, read the papers aloud to one
another and borrowed more books than in any year before or since.</p>
<p>After the war the county took over the running costs, though the committee kept the
building and the right to choose a share of the new books. A mobile library, a converted
delivery van with shelves along both sides, began to visit the outlying farms in 1954.</p>
<h2>The Library Today</h2>
<p>The weighing house still stands, with a lift where the staircase used to be and computers
in the room where the stove once burned. About four thousand people hold tickets, and the
children's floor is busier than it has ever been.<sup>5</sup> The committee still meets on the
first Monday of each month.</p>
<div class="notes"><hr>
<p>4 Their rota, written in pencil on the back of a seed catalogue, hangs framed in the
entrance hall.</p>
<p>5 Children's loans rose by a fifth between 2015 and 2024, while adult loans fell
slightly.</p>
</div>
</div>
""",
)


# 6. A landscape page with wide tables.

SHUTTLE_CSS = """
body { font-family: 'DejaVu Sans'; font-size: 9.5pt; line-height: 1.35; }
h1 { font-size: 17pt; margin: 0 0 6pt; }
h2 { font-size: 12pt; margin: 10pt 0 5pt; }
p { margin: 0 0 6pt; }
table { border-collapse: collapse; width: 100%; margin-bottom: 6pt; }
th, td { border: 1px solid #444; padding: 2.5pt 5pt; text-align: center; }
th:first-child, td:first-child { text-align: left; }
th { background: #e6e6f2; }
ul { margin: 0; padding-left: 16pt; }
"""

STOPS = [
    ("Park and Ride", 0),
    ("Station Road", 5),
    ("North Car Park", 9),
    ("Main Entrance", 12),
    ("Outpatients", 14),
    ("Maternity Wing", 17),
    ("Staff Residence", 21),
]


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def timetable(first: int, every: int, runs: int) -> list[list[str]]:
    rows = [["Stop", *[f"Run {n}" for n in range(1, runs + 1)]]]
    for stop, offset in STOPS:
        rows.append([stop, *[clock(first + every * n + offset) for n in range(runs)]])
    return rows


SHUTTLE = page(
    "Hospital Shuttle Timetable",
    SHUTTLE_CSS,
    f"""
<h1>St Brigid's Hospital Shuttle Bus</h1>
<p>The shuttle is free for patients, visitors and staff. It runs in a loop from the park and
ride site to the hospital and back, calling at every stop below in the order shown.</p>
<h2>Monday to Friday</h2>
{table(timetable(6 * 60 + 10, 40, 11))}
<h2>Saturday</h2>
{table(timetable(8 * 60 + 25, 55, 9))}
<ul>
<li>There is no service on Sundays or public holidays.</li>
<li>Wheelchair users can board at every stop; the driver will lower the ramp.</li>
<li>Times at the hospital stops may run a few minutes late during visiting hours.</li>
</ul>
""",
)


# 7. Minutes: numbered headings at two levels, a boxed aside floated beside the text, a
# numbered list and a small table of actions.

MINUTES_CSS = """
body { font-family: 'DejaVu Serif'; font-size: 10.5pt; line-height: 1.45; }
h1 { font-family: 'DejaVu Sans'; font-size: 17pt; margin: 0 0 4pt; }
h2 { font-family: 'DejaVu Sans'; font-size: 12.5pt; margin: 14pt 0 5pt; }
h3 { font-family: 'DejaVu Sans'; font-size: 10.5pt; margin: 10pt 0 4pt; }
p { margin: 0 0 7pt; }
aside { float: right; width: 58mm; margin: 4pt 0 8pt 12pt; padding: 6pt 8pt;
        border: 1.5px solid #000; background: #f2f2f2; font-family: 'DejaVu Sans';
        font-size: 9pt; line-height: 1.35; }
aside p { margin: 0 0 4pt; }
table { border-collapse: collapse; margin: 4pt 0 8pt; }
th, td { border: 1px solid #000; padding: 3pt 7pt; text-align: left; vertical-align: top; }
"""

MINUTES = page(
    "Board Meeting Minutes",
    MINUTES_CSS,
    """
<h1>Larkfield Community Garden: Minutes of the Board Meeting</h1>
<p>Held on 12 February 2025 in the meeting room above the tool shed, beginning at seven in the
evening and closing at twenty past nine.</p>
<aside>
<p><b>In brief.</b> Membership dues stay at 25 dollars a year. The county grant will pay for a
new rainwater tank. Plot 17 goes to the primary school. The spring fair is on 26 April.</p>
</aside>
<h2>1. Attendance</h2>
<p>Present were the chair, Rosa Delgado; the treasurer, Tom Okafor; the secretary, Hannah
Weiss; and the plot representatives Imran Shah and Greta Lindqvist. Apologies were received
from Paul Brennan, who is recovering from an operation and sends his good wishes to everyone.</p>
<p>The minutes of the January meeting were read and approved without changes.</p>
<h2>2. Treasurer's Report</h2>
<p>The treasurer reported a balance of 4,312 dollars at the end of January, of which 1,150
dollars is set aside for the replacement of the shed roof.</p>
<h3>2.1 Membership dues</h3>
<p>Sixty two of the sixty eight plot holders have paid for the coming season. The board
discussed raising the dues to cover the higher cost of water, and decided to keep them at the
present level for one more year, because several members on small pensions had already said
that a rise would force them to give up their plots.</p>
<h3>2.2 County grant</h3>
<p>The county has approved a grant of 2,400 dollars for water saving. The treasurer proposed
spending it on a rainwater tank behind the greenhouse and on drip hoses for the raised beds by
the gate. The proposal was carried unanimously.</p>
<h2>3. Garden Plots</h2>
<p>Three plots became free over the winter. After discussion the board agreed the
following:</p>
<ol>
<li>Plot 17, next to the pond, goes to the primary school, whose pupils will tend it with
their teachers on Friday afternoons.</li>
<li>Plots 31 and 44 go to the first two households on the waiting list.</li>
<li>The waiting list will be reviewed in June, and anyone who no longer wants a plot will be
taken off it.</li>
</ol>
<h2>4. Spring Fair</h2>
<p>The spring fair will be held on Saturday 26 April from ten until three. Greta Lindqvist will
run the seedling stall, and Imran Shah has offered to organise a children's treasure hunt
among the fruit bushes. The secretary will ask the bakery on Station Road whether it would
donate bread for the soup kitchen stand.</p>
<h2>5. Action Items</h2>
<table>
<thead><tr><th>No.</th><th>Action</th><th>Who</th><th>By</th></tr></thead>
<tbody>
<tr><td>A1</td><td>Order the rainwater tank and drip hoses</td><td>Tom Okafor</td>
<td>15 March</td></tr>
<tr><td>A2</td><td>Write to the primary school about plot 17</td><td>Hannah Weiss</td>
<td>28 February</td></tr>
<tr><td>A3</td><td>Offer plots 31 and 44 to the waiting list</td><td>Rosa Delgado</td>
<td>1 March</td></tr>
<tr><td>A4</td><td>Plan the stalls for the spring fair</td><td>Greta Lindqvist</td>
<td>5 April</td></tr>
</tbody>
</table>
<h2>6. Next Meeting</h2>
<p>The next meeting will be held on 12 March at the same time and place. Members who wish to
raise an item should give it to the secretary a week beforehand.</p>
""",
)


DOCUMENTS = [
    Document(
        "transport_review",
        REPORT,
        header="Riverside Unified School District | Transport Office | Board copy",
        footer=PAGE_OF,
    ),
    Document(
        "coop_newsletter",
        NEWSLETTER,
        header="Eastside Bicycle Co-op - The Spoke Sheet - Spring 2025",
        footer='- <span class="pageNumber"></span> -',
    ),
    Document(
        "pharmacy_tables",
        PHARMACY,
        header="St Brigid's Hospital Pharmacy | internal use only",
        footer=PAGE_OF,
    ),
    Document(
        "seed_register",
        seeds_html(),
        header="Hollow Creek Seed Library - register extract",
        footer=PAGE_OF,
    ),
    Document(
        "library_footnotes",
        LIBRARY,
        header="Millbrook Lending Library, 1925-2025",
        footer='<span class="pageNumber"></span> / <span class="totalPages"></span>',
    ),
    Document(
        "shuttle_landscape",
        SHUTTLE,
        header="Timetable valid from 1 September 2025 until further notice",
        footer=PAGE_OF,
        landscape=True,
    ),
    Document(
        "garden_minutes",
        MINUTES,
        footer="Draft minutes, to be approved at the next meeting",
    ),
]


def chromium() -> str:
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    if not path:
        sys.exit("No chromium: set CHROMIUM_PATH or install Debian's chromium (make browser).")
    return path


def make(documents: Sequence[Document], png: Path | None = None) -> list[Path]:
    """Print each document to HERE/<name>.pdf; with `png`, render its pages there too."""
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), headless=True)
        try:
            for document in documents:
                tab = browser.new_page()
                tab.set_content(document.html)
                data = tab.pdf(
                    format="A4",
                    landscape=document.landscape,
                    print_background=True,
                    display_header_footer=True,
                    header_template=centred(document.header) if document.header else "<i></i>",
                    footer_template=centred(document.footer) if document.footer else "<i></i>",
                    margin={"top": "22mm", "bottom": "22mm", "left": "20mm", "right": "20mm"},
                )
                tab.close()
                path = HERE / f"{document.name}.pdf"
                path.write_bytes(data)
                written.append(path)
                if png is not None:
                    render(path, png)
        finally:
            browser.close()
    return written


def render(path: Path, folder: Path) -> None:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    folder.mkdir(parents=True, exist_ok=True)
    pdf = pdfium.PdfDocument(path)
    for index in range(len(pdf)):
        image = pdf[index].render(scale=1.3).to_pil()
        image.save(folder / f"{path.stem}-{index + 1}.png")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.structure.heldout.make")
    parser.add_argument("--only", action="append", help="Make only this document (repeatable).")
    parser.add_argument("--png", type=Path, help="Also render every page to PNG in this folder.")
    args = parser.parse_args(argv)
    chosen = [d for d in DOCUMENTS if not args.only or d.name in args.only]
    for path in make(chosen, args.png):
        print(f"{path.relative_to(HERE.parents[3])}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
