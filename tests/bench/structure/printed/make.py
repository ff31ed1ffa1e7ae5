"""`python -m tests.bench.structure.printed.make`: write the printed tuning documents.

Each document is HTML written here and printed to PDF by Debian's chromium, driven by
Playwright (executable from $CHROMIUM_PATH, else `chromium` on PATH; Playwright never
downloads a browser). Running headers and footers are Chromium's own header and footer
templates. The PDFs are committed beside this file, so the benchmark needs no browser;
run this again only to change a document, then look at its pages (`--png DIR`) and check
its labels in __init__.py again: a line or page break that moves can make a label wrong.

In the text, `~` marks a soft hyphen (`&shy;`): where a justified line breaks there,
Chromium draws a hyphen (U+2010).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAX_BYTES = 150_000

BASE_CSS = """
@page { size: A4; }
html { -webkit-print-color-adjust: exact; }
body { margin: 0; font-family: 'DejaVu Serif'; font-size: 9.5pt; line-height: 1.38;
       color: #111; }
h1, h2, h3, h4 { font-family: 'DejaVu Sans'; color: #1a1a1a; break-after: avoid; }
h1 { font-size: 21pt; line-height: 1.2; margin: 0 0 4mm; }
h2 { font-size: 12.5pt; margin: 4mm 0 2mm; }
h3 { font-size: 10.5pt; margin: 3mm 0 1.5mm; }
h4 { font-size: 9.5pt; font-style: italic; margin: 2.5mm 0 1mm; }
p { margin: 0 0 2mm; text-align: justify; hyphens: manual; }
ul, ol { margin: 0 0 2.5mm; padding-left: 6mm; }
li { margin-bottom: 0.8mm; }
table { border-collapse: collapse; margin: 0 0 4mm; font-size: 8.5pt; }
caption { caption-side: top; text-align: left; font-family: 'DejaVu Sans'; font-size: 8.5pt;
          font-weight: bold; padding-bottom: 1.5mm; }
th { font-family: 'DejaVu Sans'; text-align: left; }
td.n, th.n { text-align: right; }
.ruled td, .ruled th { border: 0.6pt solid #444; padding: 1.2mm 2mm; }
.ruled th { background: #e6e6e6; }
.open td, .open th { padding: 2mm 5.5mm; }
.booktabs { border-top: 1.3pt solid #000; border-bottom: 1.3pt solid #000; }
.booktabs thead th { border-bottom: 0.6pt solid #000; }
.booktabs td, .booktabs th { padding: 0.9mm 1.6mm; }
.across td, .across th { border-bottom: 0.5pt solid #888; padding: 1mm 2mm; }
.across thead th { border-top: 1pt solid #000; border-bottom: 1pt solid #000; }
"""


@dataclass(frozen=True)
class Doc:
    name: str
    css: str
    body: str
    header: str = ""  # the running header's HTML, or none
    footer: str = ""  # the running footer's HTML, or none
    header_align: str = "left"
    margin: tuple[str, str, str, str] = ("20mm", "18mm", "20mm", "18mm")  # top right bottom left


def shy(html: str) -> str:
    return html.replace("~", "&shy;")


def page(doc: Doc) -> str:
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><style>{BASE_CSS}"
        f"{doc.css}</style></head><body>{shy(doc.body)}</body></html>"
    )


def band(inner: str, align: str, top: bool, doc: Doc) -> str:
    """A header or footer template: Chromium draws it in the page's margin, in a page of
    its own that shares none of the document's styles."""
    if not inner:
        return "<span></span>"
    _, right, _, left = doc.margin
    where = "padding-top: 8mm" if top else "padding-bottom: 8mm"
    return (
        f"<div style=\"width: 100%; margin: 0 {right} 0 {left}; font-family: 'DejaVu Sans'; "
        f"font-size: 7.5pt; color: #444; text-align: {align}; {where}; "
        f'-webkit-print-color-adjust: exact">{inner}</div>'
    )


def running_header(text: str) -> str:
    return f"<span style='border-bottom: 0.5pt solid #888'>{text}</span>"


PAGES_FOOTER = 'Page <span class="pageNumber"></span> of <span class="totalPages"></span>'
DASH_FOOTER = '- <span class="pageNumber"></span> -'


def logo_header(monogram: str, motto: str) -> str:
    mark = (
        "<span style='display: inline-block; background: #23415e; color: #fff; "
        "-webkit-print-color-adjust: exact; "
        "font-weight: bold; font-size: 8pt; padding: 1mm 1.6mm; border-radius: 1mm; "
        f"letter-spacing: 0.4pt'>{monogram}</span>"
    )
    words = f"<span style='font-size: 6.5pt; color: #23415e; margin-left: 1.5mm'>{motto}</span>"
    return f"{mark}{words}"


# --- 1. A mountain rescue team's report: two justified columns over three pages ---------

RESCUE_CSS = """
.cols { column-count: 2; column-gap: 7mm; }
.standfirst { font-style: italic; font-size: 10.5pt; margin-bottom: 5mm; }
.cols h2 { font-size: 11.5pt; }
.cols h2.wide { column-span: all; border-top: 1pt solid #333; padding-top: 2mm;
                margin: 3mm 0 3mm; }
.cols table { width: 100%; break-inside: avoid; }
"""

RESCUE = """
<h1>Annual Report of the Glenmore Mountain Rescue Team to its Members and Supporters</h1>
<p class="standfirst">Prepared by the team secretary for the general meeting in the village
hall, this report sets out what the team did during 2024, what it cost and what it hopes to
change in the coming year.</p>
<div class="cols">
<h2>The Year on the Hill</h2>
<p>The team answered ninety requests for help in 2024, and one more on the last night of
December, which is eleven more than in the year before and the highest number since two
shep~herds and a village doctor founded it in 1968. Most requests came on summer weekends,
when the car parks below the corrie fill before nine in the morning and the path to the
summit cairn carries a steady line of walkers. The busiest single day was the last Sunday
of July, when three sep~a~rate parties asked for help within four hours.</p>
<p>Behind every callout sits a long chain of people who rarely see the hill. The police
control room takes the first call and passes it to our duty co~or~di~na~tor, who decides
within minutes how many members to page and where they should meet. Families of members
answer the telephone at odd hours, em~ploy~ers let volunteers leave work without notice,
and the owners of the hotel at the head of the glen keep a room warm for casualties who
need shelter before the ambulance arrives.</p>
<p>We owe par~tic~u~lar thanks to the estate, which again allowed us to use its tracks and
bothies, and to the local school, whose pupils raised a re~mark~able sum by walking the
length of the loch shore in fancy dress. Their cheque paid for two new casualty bags and a
set of avalanche probes.</p>
<h2>Callouts</h2>
<h3>Winter incidents</h3>
<p>Snow lay on the high ground from late November until the middle of April, and the winter
brought fourteen in~ci~dents. Nine involved walkers who had set out without crampons or an
ice axe and found the upper slopes frozen hard. Two were climbers benighted on the north
face, both located by the light of their head torches and lowered to the corrie floor in
the early hours. The remaining three were slips on the approach path, where meltwater
freezes overnight into sheets of clear ice that are almost in~vis~i~ble in the morning.</p>
<p>The longest winter operation began at dusk on the eleventh of February, when a party of
four reported that one of them had fallen on the traverse below the summit ridge and could
not bear weight on her left leg. More than twenty members responded. The first hill party
reached the casualty shortly after nine in the evening, splinted the injury and kept her
warm in a bivouac shelter while a second party carried up the stretcher. Cloud prevented
the helicopter from flying, so the casualty was sledged and then carried down more than six
hundred metres of steep, icy ground. She reached the road at half past three in the
morning, cold and tired but in good spirits, and thanked every member by name before the
ambulance doors closed.</p>
<h3>Summer incidents</h3>
<p>Summer callouts were more numerous but usually shorter. Lost walkers made up the largest
share, often people who had followed a phone map onto the wrong ridge and then lost the
signal as the weather closed in. We continue to urge visitors to carry a paper map and a
compass, because a flat battery on a misty plateau turns a
pleasant outing into a frightening night.</p>
<p>Heat was a new concern. During the hot spell in August we treated six people for
ex~haus~tion and de~hy~dra~tion. Two members now carry elec~tro~lyte tablets and spare water
in the vehicle during warm weather, and the visitor centre has agreed to display a notice
about drinking enough on the long ascent.</p>
<p>Search dogs remain one of our most valuable resources. The team's two dogs, a collie
called Bracken and a younger spaniel called Moss, between them cleared more than forty
square kilometres of hillside this year. Their handlers train with them twice a week in all
weathers, hiding volunteers in gullies, boulder fields and forestry plan~ta~tions. On two
occasions the dogs found a missing person before any of the human searchers had reached
the area, and in one of those cases the walker was lying hidden in deep heather only a few
metres from the path that other teams had already checked twice.</p>
<table class="booktabs">
<caption>Table 1: Requests for help in 2024 by cause</caption>
<thead><tr><th>Cause</th><th class="n">Winter</th><th class="n">Summer</th>
<th class="n">Total</th></tr></thead>
<tbody>
<tr><td>Lost or benighted</td><td class="n">4</td><td class="n">27</td><td class="n">31</td></tr>
<tr><td>Slip or fall</td><td class="n">7</td><td class="n">19</td><td class="n">26</td></tr>
<tr><td>Illness</td><td class="n">1</td><td class="n">13</td><td class="n">14</td></tr>
<tr><td>Cragfast</td><td class="n">2</td><td class="n">6</td><td class="n">8</td></tr>
<tr><td>Other</td><td class="n">0</td><td class="n">12</td><td class="n">12</td></tr>
</tbody></table>
<h2>Working with Others</h2>
<p>Four times this year we were asked to help teams in neigh~bour~ing areas, twice with
search dogs and twice with hill parties for long carries. In return, the coastguard and a
team from across the pass joined us for the February evac~u~a~tion, and a helicopter crew
from the air base visited in May to practise winching with our stretcher on the flat ground
behind the base. These visits build the trust that makes a difficult night go smoothly, and
we intend to host more of them.</p>
<h2 class="wide">Training and Equipment</h2>
<h3>Courses</h3>
<p>Every member renewed the casualty care cer~tifi~cate this year, and six passed the more
demanding advanced course run by the regional training panel. We held monthly exercises on
the crags above the quarry, a night nav~i~ga~tion weekend in the forest and a joint
exercise with the coastguard team, which tested how well our radios work alongside theirs.
Three new trainees joined in the spring; each will spend a probation year learning rope
work, search methods and first aid before taking part in live callouts.</p>
<h3>Vehicles and kit</h3>
<p>Our older vehicle finally failed its in~spec~tion after nineteen years of rough tracks
and was sold for parts. Its re~place~ment, bought with help from a national charity and a
legacy left by a former member, carries the stretcher, the oxygen and the vacuum mattress
in fitted racks, so that the first party can leave the base within five minutes of a
page.</p>
<p>Kit bought or replaced during the year:</p>
<ul>
<li>two casualty bags, paid for by the school walk</li>
<li>a set of avalanche probes and three shovels</li>
<li>lightweight radios for the hill parties</li>
<li>a heated tent for long evac~u~a~tions</li>
</ul>
<h2>Accounts</h2>
<p>Income for the year came to a little over forty thousand pounds, of which almost half
came from donations collected in the hotel, the shop and the visitor centre. Spending was
higher than usual because of the new vehicle, but the reserve fund still covers more than
a year of running costs. The full accounts, examined by an in~de~pen~dent accountant, are
available from the treasurer on request.</p>
<h2>Looking Ahead</h2>
<p>Next year we hope to build a small store at the foot of the glen, so that a stretcher
and a first aid bag can be reached without a drive to the base. We also plan to visit more
schools, to speak to walking clubs before the winter season and to recruit at least four
new members, es~pe~cial~ly people who live and work in the glen during the week.</p>
<h2>Members and Thanks</h2>
<p>The team now has 38 op~er~a~tional members and a support group of twelve, who run the
base, drive the vehicles and keep the kit in order. Two long serving members retired this
year after more than thirty years each on the hill. Between them they attended well over a
thousand callouts, trained most of the present team and never once, as far as anyone can
remember, turned down a request to go out, whatever the hour or the weather.</p>
<p>Finally, our thanks go to everyone who gave money, time or a bed for the night. A rescue
team depends on the goodwill of its glen, and in 2024, as in every year since 1968, that
goodwill never ran short.</p>
<h2>How to Support the Team</h2>
<p>Donations can be left in the collecting boxes at the hotel, the shop and the visitor
centre, or handed to any member at the base. Gifts of equipment are welcome too, but please
ask the equipment officer first, because every item we carry on the hill must meet the
standards set by the national body and be logged in our kit register. Local businesses that
would like to sponsor a training weekend should speak to the treasurer.</p>
<p>Above all, the best support any visitor can give is to come prepared: check the
forecast, carry a map, a compass, a torch and warm layers, tell someone where you are going
and turn back in good time if the weather or the light begins to fail.</p>
</div>
"""


def rescue() -> Doc:
    return Doc(
        "rescue",
        RESCUE_CSS,
        RESCUE,
        header=running_header("Glenmore MRT Annual Report 2024"),
        footer=PAGES_FOOTER,
    )


# --- 2. An observatory's bulletin: three narrow columns, a "- n -" footer only ---------

OBSERVATORY_CSS = """
body { font-size: 8.6pt; line-height: 1.34; }
h1 { font-size: 24pt; text-align: center; margin-bottom: 1mm; letter-spacing: 0.5pt; }
.issue { text-align: center; font-size: 8.5pt; font-style: italic; border-top: 0.6pt solid
         #333; border-bottom: 0.6pt solid #333; padding: 1mm 0; margin-bottom: 4mm; }
.cols { column-count: 3; column-gap: 5mm; column-rule: 0.4pt solid #bbb; }
.cols h2 { font-size: 10.5pt; }
.cols h3 { font-size: 9.2pt; }
.cols h2.wide { column-span: all; text-align: center; margin: 3mm 0 3mm; padding: 1.2mm 0;
                background: #eee; }
p + p { text-indent: 3mm; }
"""

OBSERVATORY = """
<h1>Harrowfield Observatory Bulletin</h1>
<p class="issue">Number 47, autumn, for members and friends of the dome</p>
<div class="cols">
<h2>From the Director</h2>
<p>The dome was opened on 42 clear nights between April and Sep~tem~ber, more than in any
season since the ob~ser~va~to~ry was built on the old water tower in 1931. Much of the
credit goes to the vol~un~teers who now keep a rota, so that a trained operator is on site
whenever the forecast looks promising.</p>
<p>Our visitor evenings were fully booked through the summer. Over eight hundred people
climbed the spiral stair to look through the re~frac~tor, and many stayed long after
closing to ask about the planets, the phases of the Moon and the odd satellite crossing the
field of view.</p>
<p>I should also like to thank the caretaker, who has kept the building dry through two
wet winters and who noticed, just in time, that the slot shutter had begun to rust along
its lower runner.</p>
<h2>The New Mount</h2>
<p>After three years of fund~rais~ing the old clockwork drive has been retired. The new
mount tracks the sky with an electric motor and can point the telescope at any catalogued
object in under a minute. The clockwork, which had to be wound by hand every forty
minutes, will go on display in the entrance hall beside the original brass eyepieces.</p>
<p>Fitting the mount took longer than planned. The pier had settled slightly over ninety
years, and a stonemason spent two days levelling its top before the engineers could bolt
the new plate in place. Alignment was finished on a frosty night in October, with the pole
star sharp and steady in the finder.</p>
<h2 class="wide">Members' Observing Reports</h2>
<h3>Jupiter at opposition</h3>
<p>Several members followed Jupiter through the autumn. The Great Red Spot was well placed
on the evenings of the twelfth and nineteenth, and a sketch by our youngest member shows
the shadow of Io crossing the southern belt with ad~mi~ra~ble precision. Seeing was best
after midnight, once the warmth of the town had drained from the air above the dome.</p>
<h3>The Sun</h3>
<p>Solar observing has become a regular Saturday activity since the society bought a
hydrogen alpha telescope last winter. Prom~i~nences were seen on almost every clear
afternoon, and in May a large group of sunspots could be seen through eclipse glasses
without any telescope at all. Visitors are asked never to look at the Sun through the main
in~stru~ment, which has no solar filter.</p>
<h3>A faint comet</h3>
<p>A comet discovered in the summer bright~ened less than hoped, but it was still caught on
images taken from the dark site on the moor. Stacked exposures show a short tail spread
like a fan and pointing away from the Sun, and a greenish coma about two arcminutes
across.</p>
<p>Members who wish to try imaging should speak to the instrument secretary, who keeps a
list of cameras that may be borrowed.</p>
<h3>Double stars</h3>
<p>A small group has begun measuring double stars with a filar mi~crom~e~ter lent by a
university department. The work is slow, since every sep~a~ra~tion must be measured many
times and averaged, but the first results agree well with published values, and the group
hopes to con~trib~ute mea~sure~ments of neglected pairs next year.</p>
<h3>Variable stars</h3>
<p>The variable star group submitted more than three hundred estimates this year, most of
them of long period stars in Cygnus and Cas~si~o~peia. Estimates are made by comparing the
variable with nearby stars of known bright~ness, a method that needs nothing more than a
small telescope, a good chart and patience. The group's records now cover eleven years
without a break, and the national as~so~ci~a~tion has asked to include them in its
archive, where they will sit beside ob~ser~va~tions made by amateurs for more than a
century. New observers are always welcome and will be paired with an ex~pe~ri~enced
member for their first few nights.</p>
<h3>A lunar occultation</h3>
<p>On the evening of the third of November the Moon passed in front of a fourth magnitude
star in Taurus. Four members timed the star's dis~ap~pear~ance at the dark edge of the Moon
with stopwatches and radio time signals, and their times agreed to within a fifth of a
second. The timings have been sent to the in~ter~na~tional centre that collects them, where
they help to refine the profile of the lunar limb.</p>
<h3>Aurora</h3>
<p>For the first time in many years the northern lights were seen from the observatory
itself. On a cold night in October a member locking up noticed a red glow above the
gasworks and called the others back; within half an hour pale green rays were rising
almost to the zenith. Photographs taken from the balcony appear on the notice board, and
several have been sent to the county newspaper. Members are asked to report any future
sightings to the secretary, with the time, the direction and the colours of the
display.</p>
<h3>Meteors</h3>
<p>Cloud spoiled the August shower for most of us, but two members who drove to the coast
counted more than sixty meteors in an hour, including a bright fireball that left a trail
visible for several seconds. Next year the Perseids fall close to new Moon, and the
committee is arranging a night on the moor with a hired minibus.</p>
<h2 class="wide">Dates and Bookings</h2>
<p>Members may book the dome for private observing on any night that is not already
reserved for a public evening. To make a booking:</p>
<ol>
<li>Check the calendar on the notice board in the entrance hall.</li>
<li>Write your name and membership number against a free night.</li>
<li>Collect the key from the caretaker before six in the evening.</li>
<li>Return the key and sign the log book when you leave.</li>
</ol>
<h3>Annual lecture</h3>
<p>This year's annual lecture will be given by a retired lens maker who spent forty years
grinding objectives for ob~ser~va~to~ries across Europe. She will describe how a large lens
is figured by hand and tested against a star, and will bring with her a partly finished
disc of glass that members may handle.</p>
<p>Refreshments will be served in the library after the lecture. Members are reminded that
the library's star atlases may be borrowed for up to four weeks, and that the oldest
volumes, including the hand coloured atlas donated by the founder, may be consulted only in
the reading room.</p>
<h2>Notes from the Committee</h2>
<p>The committee thanks everyone who replied to the survey about opening hours. Most
members would like the dome to open earlier in winter, and a trial of seven o'clock starts
will begin in November. The sub~scrip~tion will remain unchanged for another year.</p>
</div>
"""


def observatory() -> Doc:
    return Doc("observatory", OBSERVATORY_CSS, OBSERVATORY, footer=DASH_FOOTER)


# --- 3. A bakers' guild handbook: numbered headings, footnotes, a box, lists -----------
# Pages are laid by hand (one .sheet a page) so that each page's footnotes stand at its
# foot; make() checks that no sheet's text runs into its footnotes.

GUILD_CSS = """
body { font-size: 9.8pt; line-height: 1.4; }
.sheet { width: 170mm; height: 255mm; position: relative; overflow: hidden; break-after: page; }
.sheet:last-child { break-after: auto; }
h1 { font-size: 19pt; margin-bottom: 1mm; }
.edition { font-style: italic; margin-bottom: 5mm; }
h2 { font-size: 12pt; margin-top: 5mm; }
h2 + h3 { margin-top: 1.5mm; }
p + p { text-indent: 5mm; }
p.cont { text-align-last: justify; }
.box { float: right; width: 35%; margin: 1mm 0 2mm 5mm; padding: 2.5mm 3mm;
       background: #f1ece1; border-left: 1.5pt solid #8a6d3b; font-family: 'DejaVu Sans';
       font-size: 8.3pt; line-height: 1.35; }
.box p { text-align: left; margin: 0; }
.quote { margin: 3mm 14mm 4mm; padding: 2mm 0; border-top: 0.8pt solid #8a6d3b;
         border-bottom: 0.8pt solid #8a6d3b; font-size: 12.5pt; font-style: italic;
         text-align: center; color: #5b4524; }
.quote p { text-align: center; margin: 0; }
.notes { position: absolute; left: 0; right: 0; bottom: 0; font-size: 7.8pt;
         line-height: 1.3; }
.notes hr { width: 35%; margin: 0 0 1.5mm; border: 0; border-top: 0.6pt solid #333; }
.notes p { margin: 0 0 0.8mm; text-indent: 0; text-align: left; }
sup { font-size: 65%; line-height: 0; }
.open { margin-left: 8mm; }
.open caption { padding-left: 5.5mm; }
"""

GUILD = """
<div class="sheet"><div class="body">
<h1>Members' Handbook of the Ashcombe Guild of Bakers</h1>
<p class="edition">Edition of 2025, adopted at the spring assembly</p>
<h2>1 About the Guild</h2>
<div class="box"><p><b>The Guild in numbers.</b> There are 212 members in 64 bakeries and
nine apprentices in training. The Guild holds one bread fair every September, and its
charter has been amended only four times since it was written.</p></div>
<p>The Ashcombe Guild of Bakers brings together the people who bake bread, cakes and pastry
for a living in the town and the villages around it. It was formed in 1887, when eleven
master bakers agreed to share the cost of a flour mill and to buy their salt and yeast
together.<sup>1</sup> Today the Guild no longer owns a mill, but it still negotiates prices
with suppliers on behalf of its members and keeps a common fund for bakers who fall ill or
lose their ovens to fire.</p>
<p>The Guild is not a trade union and does not set wages. Its purpose, in the words of the
charter, is to keep good bread within reach of every household and to pass the craft from
one generation of bakers to the next. Members meet four times a year, elect a warden and
two deputies, and serve in turn on the committees that run the fair, the apprentice scheme
and the common fund.</p>
<h3>1.1 Our charter</h3>
<p>The charter is a short document, written in plain language and kept in the town museum,
with a copy in every member's shop. It sets out who may join, how the warden is chosen and
how the common fund may be spent. Amendments need the support of two thirds of the members
present at an assembly, and each amendment is added as a numbered schedule rather than
written into the original text.</p>
<h2>2 Membership</h2>
<h3>2.1 Membership dues</h3>
<p>Dues are set each year by the spring assembly and are payable in January. They depend on
the grade of membership and, for bakeries, on the number of ovens in use. Table 1 shows the
dues agreed for the current year.</p>
<table class="open">
<caption>Table 1: Yearly dues by grade of membership</caption>
<thead><tr><th>Grade</th><th class="n">Dues (pounds)</th><th class="n">Members</th></tr>
</thead>
<tbody>
<tr><td>Master baker</td><td class="n">180</td><td class="n">58</td></tr>
<tr><td>Bakery owner</td><td class="n">240</td><td class="n">64</td></tr>
<tr><td>Journeyman</td><td class="n">95</td><td class="n">71</td></tr>
<tr><td>Apprentice</td><td class="n">12</td><td class="n">9</td></tr>
<tr><td>Retired member</td><td class="n">20</td><td class="n">10</td></tr>
</tbody></table>
<p class="cont">Members who cannot pay on time should speak to the treasurer before the end
of February. The committee has always preferred a quiet arrangement to the loss of a
member, and dues may be paid in monthly instalments or deferred for a season after a fire,
a flood or a long illness.<sup>2</sup> A</p>
</div>
<div class="notes"><hr>
<p><sup>1</sup> The mill stood on the river below the old bridge until 1931, when it was
converted into houses.</p>
<p><sup>2</sup> The common fund may also pay a member's dues for up to two years after a
fire.</p>
</div></div>

<div class="sheet"><div class="body">
<p style="text-indent: 0">member whose dues remain unpaid for a full year without any
arrangement is treated as having resigned, but may rejoin later without paying the
arrears, provided that the warden agrees and the member has not been excluded for any other
reason.</p>
<h3>2.2 Leaving the Guild</h3>
<p>A member may resign at any time by writing to the secretary. The secretary will
then:</p>
<ol>
<li>Acknowledge the letter within fourteen days.</li>
<li>Return any share of the common fund the member is owed.</li>
<li>Remove the member's name from the list displayed at the fair.</li>
<li>Send the member a copy of the charter, so that rejoining is easy.</li>
</ol>
<h2>3 The Bread Fair</h2>
<h3>3.1 Stalls</h3>
<p>The fair is held on the green on the second Saturday of September.<sup>3</sup> Every
member bakery may take a stall, and the committee allots the pitches by drawing lots a
month before the fair. Stallholders should bring:</p>
<ul>
<li>A table, a cloth and a sign showing the bakery's name</li>
<li>Enough bread for the whole day, including
<ul>
<li>at least one loaf baked to a recipe from the Guild's book</li>
<li>small samples for children, cut in advance</li>
</ul></li>
<li>A float of change and a receipt book</li>
</ul>
<h4>3.1.1 Ovens on the green</h4>
<p>Two wood fired ovens are built on the green each year so that visitors can watch bread
being baked. Members take turns to tend them in shifts of two hours. The ovens must be lit
by seven in the morning to reach baking heat by ten, and they are allowed to burn out
slowly after the fair rather than being doused with water, which cracks the clay.</p>
<h3>3.2 Judging</h3>
<p>Loaves entered for judging are cut and tasted by three judges, none of whom may be a
member of the Guild. The judges look at the crust, the crumb, the flavour and how well the
loaf keeps until the following day. The winning baker receives the silver peel, which is
engraved with the bakery's name and returned to the Guild the following summer.</p>
<div class="quote"><p>Bread is the first thing a town makes each morning and the last
thing it forgets.</p></div>
</div>
<div class="notes"><hr>
<p><sup>3</sup> If the green is waterlogged, the fair moves to the covered market hall.</p>
</div></div>

<div class="sheet"><div class="body">
<h2>4 Apprentices</h2>
<p>The Guild supports up to ten apprentices at a time. Each is placed with a master baker
for three years and spends one day a week at the college in the county town. The common
fund pays for the college course, for books and for a set of knives, which the apprentice
keeps on completing the training.<sup>4</sup></p>
<p>Apprentices are assessed at the end of each year by two masters from bakeries other
than their own. The final assessment includes a full night's baking, from mixing the first
dough to loading the delivery van, and ends with a short conversation about costs, hygiene
and the care of the ovens.</p>
<h2>5 The Common Fund</h2>
<p>The common fund is built from a tenth of each member's dues, from the profit of the fair
and from gifts. It may be used to help a member through illness or after damage to a
bakery, to pay for apprentices and to keep the Guild's records. Applications are
considered in confidence by the warden and the two deputies, who report to each assembly
only the number of grants made and the total paid.</p>
<div class="box"><p><b>Applying to the fund.</b> Write to the warden, or speak to either
deputy after an assembly. Every application is answered within a month.</p></div>
<p>Grants are not loans and need not be repaid, although several bakers have, over the
years, given back more than they received once their ovens were working again. The fund
has never refused an application for want of money, and the committee intends to keep it
that way by holding at least one year's grants in reserve.</p>
<p>The accounts of the fund are examined every year by a member who does not serve on any
committee, and a summary is read aloud at the winter assembly.</p>
</div>
<div class="notes"><hr>
<p><sup>4</sup> Apprentices who leave before the end of the first year are asked to return
the knives.</p>
</div></div>
"""


def guild() -> Doc:
    return Doc(
        "guild",
        GUILD_CSS,
        GUILD,
        header=running_header("Ashcombe Bakers: Handbook for Members"),
        footer=PAGES_FOOTER,
        margin=("20mm", "20mm", "22mm", "20mm"),
    )


# --- 4. A county archive's report: a logo header, ruled, spanned and long tables -------

ARCHIVE_CSS = """
body { font-family: 'DejaVu Sans'; font-size: 9pt; line-height: 1.4; }
h1 { font-size: 18pt; font-weight: normal; color: #23415e; }
h2 { color: #23415e; }
table { width: 100%; }
.ruled td.remark { width: 30%; }
.spans th { text-align: center; }
.spans td, .spans th { border: 0.6pt solid #444; padding: 1.2mm 2mm; }
.spans th { background: #e6e6e6; }
.spans td.site { vertical-align: middle; font-weight: bold; }
.register { font-size: 8pt; }
.register td, .register th { padding: 0.7mm 2mm; }
.register tr { break-inside: avoid; }
"""

BODIES = [
    "Saint Edith's parish",
    "Brackley Mill",
    "the Halwick Rowing Club",
    "Northfield Farm",
    "the Drovers' Inn",
    "the county surveyor",
    "Lowther and Sons, drapers",
    "the Women's Institute",
    "the Grammar School",
    "Moorside Chapel",
    "the Gas Light Company",
    "the Petty Sessions",
]
KINDS = [
    "minute books",
    "wages books",
    "letters",
    "photographs",
    "deeds",
    "plans",
    "registers",
    "account books",
]
EXTRA = [
    ("Diaries of a country doctor", "Family"),
    ("Cooperative Society records", "Business"),
    ("Letters of a sea captain", "Family"),
    ("Vestry minutes of Saint Edith", "Parish"),
]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DEPOSITORS = ["Parish", "Business", "Society", "Family", "Council"]


def register_rows() -> list[tuple[str, str, str, str, str]]:
    """The accessions register: 100 rows, each reference, date and description unique."""
    rows, k = [], 0
    for n in range(100):
        day = date(2024, 1, 2) + timedelta(days=n * 362 // 100)
        received = f"{day.day} {MONTHS[day.month - 1]}"
        if n % 25 == 5:
            description, depositor = EXTRA[n // 25]
        else:
            body = BODIES[k % len(BODIES)]
            kind = KINDS[(k * 5 + k // len(BODIES)) % len(KINDS)]
            description = f"{kind.capitalize()} of {body}"
            k += 1
            depositor = DEPOSITORS[(n * 3) % len(DEPOSITORS)]
        boxes = str(1 + (n * 7) % 23)
        rows.append((f"2024/{n + 1:03d}", received, description, depositor, boxes))
    assert len({row[2] for row in rows}) == len(rows), "a description repeats"
    return rows


def _register() -> str:
    rows = "\n".join(
        f"<tr><td>{ref}</td><td>{received}</td><td>{what}</td><td>{who}</td>"
        f"<td class='n'>{boxes}</td></tr>"
        for ref, received, what, who, boxes in register_rows()
    )
    return (
        "<table class='across register'>"
        "<caption>Table 3: Register of accessions received in 2024</caption>"
        "<thead><tr><th>Reference</th><th>Received</th><th>Description</th>"
        "<th>Depositor</th><th class='n'>Boxes</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


ARCHIVE = """
<h1>Halwick County Archive: Report on Accessions and the Reading Room for the Year
2024</h1>
<h2>Introduction</h2>
<p>The archive holds the records of the county council, its predecessors and the parishes
within its borders, together with papers deposited by families, businesses, churches and
societies. This report describes how the collections grew during the year, how the reading
room was used and how full the strongrooms have become.</p>
<p>The year was dominated by the move of the map collection from the basement to the new
strongroom on the second floor, a task that took four months and the help of nineteen
volunteers. Every map was checked against the catalogue, measured and placed in an acid
free folder before it was carried upstairs.</p>
<h2>The Reading Room</h2>
<p>Visitors returned in greater numbers than at any time since the reading room was
refurbished. Family historians remain the largest group, followed by students, local
historians and house owners tracing the history of their homes. Table 1 gives the figures
for each quarter.</p>
<table class="ruled">
<caption>Table 1: Use of the reading room by quarter</caption>
<thead><tr><th>Quarter</th><th class="n">Visits</th><th class="n">Items produced</th>
<th class="n">Remote enquiries</th><th>Remarks</th></tr></thead>
<tbody>
<tr><td>January to March</td><td class="n">412</td><td class="n">1,306</td>
<td class="n">288</td><td class="remark">Closed for two weeks for the annual stocktake</td></tr>
<tr><td>April to June</td><td class="n">538</td><td class="n">1,742</td>
<td class="n">301</td><td class="remark">Evening openings began</td></tr>
<tr><td>July to September</td><td class="n">617</td><td class="n">2,015</td>
<td class="n">264</td><td class="remark">Summer school for history students</td></tr>
<tr><td>October to December</td><td class="n">489</td><td class="n">1,588</td>
<td class="n">327</td><td class="remark">Heating failed in November</td></tr>
</tbody></table>
<h2>Strongrooms</h2>
<p>The archive now stores its collections in four strongrooms on two sites. Table 2 shows
how much shelving each room holds and how much of it is already in use. At the present
rate of deposit the main building will be full within six years, and the council has begun
to look for land for a new store.</p>
<table class="spans">
<caption>Table 2: Shelving in the strongrooms, in metres</caption>
<thead>
<tr><th rowspan="2">Site</th><th rowspan="2">Room</th><th colspan="2">Fixed shelving</th>
<th colspan="2">Mobile shelving</th></tr>
<tr><th>Capacity</th><th>In use</th><th>Capacity</th><th>In use</th></tr>
</thead>
<tbody>
<tr><td rowspan="3" class="site">Main building</td><td>Strongroom A</td><td class="n">640</td>
<td class="n">598</td><td class="n">1,120</td><td class="n">1,034</td></tr>
<tr><td>Strongroom B</td><td class="n">480</td><td class="n">402</td><td class="n">960</td>
<td class="n">711</td></tr>
<tr><td>Map room</td><td class="n">210</td><td class="n">96</td><td class="n">150</td>
<td class="n">35</td></tr>
<tr><td class="site">Eastgate store</td><td>Strongroom D</td><td class="n">1,450</td>
<td class="n">1,187</td><td class="n">380</td><td class="n">122</td></tr>
</tbody></table>
<h2>Accessions</h2>
<h3>Notable deposits</h3>
<p>Among the year's deposits, three stand out. The records of the Halwick and District
Cooperative Society arrived in forty boxes, covering a century of shops, dairies and
funeral services. A family in the north of the county gave the letters of a sea captain
who wrote to his wife from every port between Valparaiso and Yokohama. The parish of Saint
Edith deposited its vestry minutes, which had been kept in a damp tower and needed careful
drying before they could be listed.</p>
<h3>The register</h3>
<p>The register below lists every accession received during the year, with the date it
arrived, the kind of depositor and the extent in boxes. Catalogues for most of them will
be available in the reading room by the end of next year.</p>
REGISTER
<p>Depositors who wish to add to their collections, or to discuss access conditions,
should write to the county archivist. The archive is grateful to everyone who entrusted
records to its care during the year.</p>
"""


def archive() -> Doc:
    return Doc(
        "archive",
        ARCHIVE_CSS,
        ARCHIVE.replace("REGISTER", _register()),
        header=logo_header("HCA", "Records for Everyone"),
        header_align="right",
        footer=PAGES_FOOTER,
        margin=("22mm", "18mm", "20mm", "18mm"),
    )


# --- 5. A ferry timetable: a landscape page with a wide table ---------------------------

FERRY_CSS = """
@page { size: A4 landscape; }
body { font-family: 'DejaVu Sans'; font-size: 8.8pt; }
h1 { font-size: 19pt; }
.intro { column-count: 2; column-gap: 10mm; margin-bottom: 3mm; }
.timetable { width: 100%; font-size: 8pt; }
.timetable td, .timetable th { text-align: right; padding: 1mm 1.4mm; }
.timetable td:first-child, .timetable th:first-child { text-align: left; }
.timetable tbody tr:nth-child(even) td { background: #eef3f7; }
.fares { width: 62%; }
"""

PIERS = ["Portmore depart", "Kelsay arrive", "Kelsay depart", "Rona (on request)", "Ardvane arrive"]
BACK = ["Ardvane depart", "Rona (on request)", "Kelsay arrive", "Kelsay depart", "Portmore arrive"]
OFFSETS = [0, 38, 47, 71, 96]


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def sailings(numbers: list[str], starts: list[int], piers: list[str]) -> str:
    head = "".join(f"<th>{number}</th>" for number in numbers)
    rows = []
    seen: set[int] = set()
    for pier, offset in zip(piers, OFFSETS, strict=True):
        times = "".join(f"<td>{clock(start + offset)}</td>" for start in starts)
        rows.append(f"<tr><td>{pier}</td>{times}</tr>")
        seen.update(start + offset for start in starts)
    assert len(seen) == len(piers) * len(starts), "a time repeats in the timetable"
    days = "".join(f"<td>{'Sat' if n % 4 == 3 else 'Daily'}</td>" for n in range(len(starts)))
    rows.append(f"<tr><td>Runs</td>{days}</tr>")
    return f"<thead><tr><th>Sailing</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"


OUT_STARTS = [370, 452, 529, 613, 694, 772, 851, 934, 1013, 1091, 1172, 1253]
BACK_STARTS = [404, 488, 567, 649, 733, 808, 889, 967, 1048, 1129, 1207, 1286]

FERRY = """
<h1>Kelsay Sound Ferries: Summer Timetable 2025</h1>
<div class="intro">
<p>These times apply from the first of May to the thirtieth of September, including public
holidays. Vehicles must check in at least thirty minutes before departure, and foot
passengers fifteen minutes before. Sailings may be delayed or cancelled at short notice in
strong winds; the latest position is announced on local radio and shown on the boards at
every pier.</p>
<p>The Rona call is made only when passengers or goods are booked to land or join there.
Please tell the purser before the ship leaves Kelsay if you wish to land at Rona, and
telephone the pier office by eight in the evening before if you wish to join there.
Sailings marked Sat run on Saturdays only.</p>
</div>
<h2>Outward Sailings</h2>
<table class="across timetable">
<caption>Table 1: Monday to Saturday sailings from Portmore to Ardvane</caption>
OUTWARD
</table>
<h2>Return Sailings</h2>
<table class="across timetable">
<caption>Table 2: Monday to Saturday sailings from Ardvane to Portmore</caption>
RETURN
</table>
<h2>Fares</h2>
<p>Fares are charged for each single journey and may be paid on board by card. Children
under five travel free, and a bicycle travels free with a foot passenger on any sailing
that is not full.</p>
<table class="ruled fares">
<caption>Table 3: Single fares in pounds</caption>
<thead><tr><th>Ticket</th><th class="n">Portmore to Kelsay</th><th class="n">Portmore to
Ardvane</th><th class="n">Kelsay to Ardvane</th></tr></thead>
<tbody>
<tr><td>Adult</td><td class="n">6.40</td><td class="n">11.20</td><td class="n">5.10</td></tr>
<tr><td>Child aged 5 to 15</td><td class="n">3.20</td><td class="n">5.60</td>
<td class="n">2.55</td></tr>
<tr><td>Car and driver</td><td class="n">28.50</td><td class="n">47.90</td>
<td class="n">21.75</td></tr>
<tr><td>Motorcycle and rider</td><td class="n">14.30</td><td class="n">23.80</td>
<td class="n">10.90</td></tr>
</tbody></table>
<h2>Notes for Passengers</h2>
<ul>
<li>Dogs are welcome in the outer lounges and on deck, but not in the cafeteria.</li>
<li>The cafeteria serves hot food on every sailing that leaves before two in the
afternoon.</li>
<li>Passengers who need help to board should tell the pier office a day in advance.</li>
</ul>
<h2>Sunday Sailings</h2>
<p>On Sundays the ship makes two round trips only, leaving Portmore at half past nine in
the morning and at four in the afternoon, and calling at Rona on both outward sailings
whether or not anyone has booked.</p>
"""


def ferry() -> Doc:
    numbers = [f"K{101 + 2 * n}" for n in range(len(OUT_STARTS))]
    back = [f"K{102 + 2 * n}" for n in range(len(BACK_STARTS))]
    body = FERRY.replace("OUTWARD", sailings(numbers, OUT_STARTS, PIERS))
    body = body.replace("RETURN", sailings(back, BACK_STARTS, BACK))
    return Doc(
        "ferry",
        FERRY_CSS,
        body,
        header=running_header("Kelsay Sound Ferries, valid 1 May to 30 September 2025"),
        footer=PAGES_FOOTER,
        margin=("20mm", "16mm", "17mm", "16mm"),
    )


# --- 6. An orchard newsletter: a floated box and a pull quote beside the text ----------

ORCHARD_CSS = """
body { font-size: 10pt; line-height: 1.45; }
h1 { font-size: 22pt; color: #3d5a1e; margin-bottom: 1mm; }
.issue { font-family: 'DejaVu Sans'; font-size: 9pt; color: #555; margin-bottom: 5mm; }
h2 { color: #3d5a1e; }
h2 + h3 { margin-top: 1mm; }
.box { float: right; width: 35%; margin: 1mm 0 3mm 6mm; padding: 3mm; border: 0.8pt solid
       #3d5a1e; font-family: 'DejaVu Sans'; font-size: 8.5pt; line-height: 1.4; }
.box p { text-align: left; margin: 0 0 1.5mm; }
.pull { float: left; width: 38%; margin: 2mm 6mm 2mm 0; font-size: 13pt; line-height: 1.3;
        font-style: italic; color: #3d5a1e; border-left: 2pt solid #3d5a1e;
        padding-left: 3mm; }
.pull p { text-align: left; margin: 0; }
"""

ORCHARD = """
<h1>Tarnside Community Orchard Newsletter</h1>
<p class="issue">Issue 12, autumn, for volunteers, neighbours and tree sponsors</p>
<h2>Harvest Report</h2>
<h3>Apples</h3>
<div class="box"><p><b>Dates for your diary.</b> Apple pressing on the first Sunday of
October, from ten until the juice runs out.</p>
<p>Wassail by lantern light on the seventeenth of January.</p>
<p>Pruning course on the last Saturday of February.</p></div>
<p>It was the best year the orchard has known. The blossom escaped the late frosts that
ruined last year's crop, the bees were busy through a warm May and the summer brought just
enough rain to swell the fruit without splitting it. By the end of September the old
cider trees along the north hedge were so heavily laden that several branches had to be
propped with forked poles.</p>
<p>Volunteers picked on five Saturday mornings and filled more than two hundred crates.
Eaters went to the school kitchen, the food bank and the stall at the village gate, where
the honesty box raised enough to pay for new tree guards. Cookers were stored in the barn
loft on slatted racks, and the cider apples went to the press.</p>
<p>Our oldest tree, the russet planted by the first tenant of the farm, gave fruit for the
first time in four years. Its apples are small and rough skinned, but several people who
tasted them at the stall came back the following week to ask for more.</p>
<div class="pull"><p>We picked more fruit this year than in the orchard's first five years
together.</p></div>
<p>The scab that troubled the young trees in the lower field was less severe than we
feared. The wet spring encouraged it, but the open pruning of last winter let air move
through the branches, and only a handful of apples had to be thrown away.</p>
<h3>Pears and quinces</h3>
<p>The pears ripened unevenly, as they always do, and the wasps found them before we did.
The quinces, on the other hand, were magnificent: two trees gave nearly forty kilograms of
golden fruit, most of which became jelly and paste for the winter fair.</p>
<h2>Volunteer Days</h2>
<p>Work days run on the first and third Saturday of each month from nine until noon.
Nobody needs experience, and tools, gloves and tea are provided. This winter we will
concentrate on the following tasks:</p>
<ul>
<li>Mulching the young trees in the lower field</li>
<li>Mending the hedge along the lane, including
<ul>
<li>laying the overgrown stretch by the gate</li>
<li>planting hazel and hawthorn in the gaps</li>
</ul></li>
<li>Clearing brambles from the pond margin</li>
</ul>
<p>Please wear stout boots, as the ground by the pond stays wet until spring. Children are
welcome if they come with an adult, and there is always a job small enough for them, from
counting buds to carrying the kindling for the tea fire. Last winter our youngest helper
was four years old and planted a damson tree that is now taller than she is, which she
visits every Saturday to check on its progress and to tell it the news of the week.</p>
<h2>Pruning Course</h2>
<p>Our head gardener will run a pruning course for beginners in February. The morning
covers the tools, the reasons for pruning and the difference between young and old trees;
after lunch each person prunes a tree of their own under guidance. Places are limited to
twelve, and the fee goes towards the new tree guards.</p>
<h2>Tree Sponsors</h2>
<p>Forty trees now have sponsors, who receive a basket of fruit in the autumn and a
label with their name on the tree. Sponsorship makes a good present, and three of this
year's new trees were given in memory of friends who loved the orchard.</p>
"""


def orchard() -> Doc:
    return Doc(
        "orchard",
        ORCHARD_CSS,
        ORCHARD,
        header=running_header("Tarnside Orchard News, Autumn"),
        footer=PAGES_FOOTER,
        margin=("20mm", "20mm", "20mm", "20mm"),
    )


DOCS: list[Callable[[], Doc]] = [rescue, observatory, guild, archive, ferry, orchard]

# Each .sheet's text must end above its footnotes: None if so, else what overran.
OVERRUN_JS = """() => {
  for (const sheet of document.querySelectorAll('.sheet')) {
    const body = sheet.querySelector('.body').getBoundingClientRect();
    const notes = sheet.querySelector('.notes');
    const limit = notes ? notes.getBoundingClientRect().top : sheet.getBoundingClientRect().bottom;
    if (body.bottom > limit - 2) return sheet.innerText.slice(0, 80);
  }
  return null;
}"""


def chromium() -> str:
    configured = os.environ.get("CHROMIUM_PATH", "")
    path = configured or shutil.which("chromium")
    if not path or not os.access(path, os.X_OK):
        sys.exit("No chromium: install Debian's (`make browser`) or set CHROMIUM_PATH.")
    return path


def render(pdf: Path, directory: Path) -> None:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    document = pdfium.PdfDocument(pdf)
    for number in range(len(document)):
        image = document[number].render(scale=1.3).to_pil()
        image.save(directory / f"{pdf.stem}-{number + 1}.png")
    document.close()


def make(names: list[str], out: Path, png: Path | None) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), headless=True)
        for doc in (make_doc() for make_doc in DOCS):
            if names and doc.name not in names:
                continue
            tab = browser.new_page()
            tab.emulate_media(media="print")
            tab.set_content(page(doc))
            overrun = tab.evaluate(OVERRUN_JS)
            if overrun:
                sys.exit(f"{doc.name}: a page's text runs into its footnotes: {overrun!r}")
            top, right, bottom, left = doc.margin
            path = out / f"{doc.name}.pdf"
            tab.pdf(
                path=str(path),
                prefer_css_page_size=True,
                print_background=True,
                display_header_footer=bool(doc.header or doc.footer),
                header_template=band(doc.header, doc.header_align, True, doc),
                footer_template=band(doc.footer, "center", False, doc),
                margin={"top": top, "right": right, "bottom": bottom, "left": left},
            )
            tab.close()
            size = path.stat().st_size
            if size > MAX_BYTES:
                sys.exit(f"{path.name} is {size} bytes, over {MAX_BYTES}")
            print(f"{path.name}: {size} bytes")
            if png:
                png.mkdir(parents=True, exist_ok=True)
                render(path, png)
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.structure.printed.make")
    parser.add_argument("names", nargs="*", help="Only these documents (default: all).")
    parser.add_argument("--png", type=Path, help="Also render each page to a PNG here.")
    parser.add_argument("--out", type=Path, default=HERE, help="Where the PDFs go.")
    args = parser.parse_args()
    make(args.names, args.out, args.png)


if __name__ == "__main__":
    main()
