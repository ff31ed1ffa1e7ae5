"""Paraphrase queries over the corpus, written by hand for tests.bench.search: each describes
a passage in other words than its own, as someone who has not read the document would ask,
and names the file, page and a verbatim snippet of the passage that answers it.

156 queries over 30 documents of many kinds: papers, books and book-length guides, a
specification, manuals, a reference card, an FAQ, slides, forms, a letter, a licence, a
newsletter, a report, a screenplay; mostly English, some German and Japanese. The
documents the first 65 queries name came with the corpus; the other 18 are Debian
packages' documentation (tests/corpus/README.md, category `search-set`). A snippet is
verbatim (spaces collapsed) on its page as our pipeline extracts it (page_texts below:
read_document, then pages_to_index). The added queries' snippets also sit in a chunk that
starts on that page (a hit is a result on the page, and a result's page is its chunk's
first), and no other page of the document answers them as well. Most queries share no
content word with their page's text (tests/bench/search/words.py says how that is
counted). tests/bench/test_paraphrases.py and tests/bench/test_paraphrase_snippets.py
check the set.

Held out: the queries marked `held_out` (a third of them, every query of ten whole
documents) are for measuring only. Nobody tunes a model, a floor or a ranking rule on them,
nor looks at how they rank while tuning; the benchmark reports them apart from the rest,
so the gap between the two says how much the tuning fitted the tuned-on queries.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.factories import CORPUS


def page_texts(file: str) -> dict[int, str]:
    """Each page's text of a corpus file (a Paraphrase's `file`) as a job extracts it, with
    OCR on: read_document finding the pages that need OCR, reading them if there are any,
    then pages_to_index; spaces collapsed. Django must be set up."""
    from search.pipeline.extract import pages_to_index, read_document
    from search.pipeline.page import OcrOrder

    path = CORPUS / file
    order = OcrOrder("find")
    # The corpus test's limits (tests/search/test_corpus.py).
    extracted = read_document(path, ocr=order, max_pages=2000, timeout=120, memory_mb=1024)
    if extracted.scans:
        order = OcrOrder("read")
        extracted = read_document(path, ocr=order, max_pages=2000, timeout=120, memory_mb=1024)
    return {page.number: " ".join(page.text.split()) for page in pages_to_index(extracted, order)}


@dataclass(frozen=True)
class Paraphrase:
    file: str  # under tests/corpus/
    page: int  # 1-based
    snippet: str  # verbatim from the page's text, spaces collapsed
    query: str
    held_out: bool = False  # never tuned on: see the module's docstring


PARAPHRASES = (
    # GeoTopo lecture notes (German): some queries in English, some in German.
    Paraphrase(
        "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf",
        2,
        "Ringbindung) für 10 Euro hätte, kann mir eine E-Mail schicken",
        "how much does a printed spiral-bound copy of these lecture notes cost",
    ),
    Paraphrase(
        "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf",
        2,
        "für einen Torus müsste man ein Loch machen.",
        "Warum lässt sich eine Kugel nicht stetig in einen Donut verformen?",
    ),
    Paraphrase(
        "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf",
        12,
        "Ist X hausdorffsch, so hat jede Folge in X höchstens einen Grenzwert.",
        "in a space where points can be separated, sequences converge to at most one limit",
    ),
    Paraphrase(
        "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf",
        12,
        "Metrik wird auch „französische Eisenbahnmetrik“ genannt.",
        "anderer Name für den Abstand, der wie das Pariser Bahnnetz über die Mitte führt",
    ),
    Paraphrase(
        "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf",
        22,
        "Es gibt stetige, surjektive Abbildungen [0, 1] → [0, 1]",
        "a continuous curve that fills an entire square",
    ),
    Paraphrase(
        "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf",
        42,
        "Für eine Triangulierung des Torus werden mindestens 14 Dreiecke benötigt.",
        "fewest triangles needed to cut a donut surface into a proper mesh",
    ),
    Paraphrase(
        "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf",
        102,
        "Christian Bär (2. Auflage), ISBN 978-3-11-022458-0, ab Seite 281 nachgelesen werden.",
        "which book has the skipped proof linking total curvature to the Euler characteristic",
    ),
    Paraphrase(
        "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf",
        103,
        "Teilaufgabe c) Beh.: Es gibt unendlich viele Primzahlen.",
        "topologischer Beweis, dass die Reihe der Primzahlen niemals aufhört",
    ),
    # A Google Docs export: the Zen of Python and a small table of countries.
    Paraphrase(
        "py-pdf__sample-files/011-google-doc-document/google-doc-document.pdf",
        1,
        "In the face of ambiguity, refuse the temptation to guess.",
        "when things are unclear, do not just make an assumption",
    ),
    Paraphrase(
        "py-pdf__sample-files/011-google-doc-document/google-doc-document.pdf",
        1,
        "Errors should never pass silently. Unless explicitly silenced.",
        "problems must not be quietly swallowed unless deliberately muted",
    ),
    Paraphrase(
        "py-pdf__sample-files/011-google-doc-document/google-doc-document.pdf",
        1,
        "Capital Jakarta Berlin Vienna Paris Vatican City",
        "seats of government of the nations compared in the table",
    ),
    # The Crazy Ones.
    Paraphrase(
        "py-pdf__sample-files/021-pdfa/crazyones-pdfa.pdf",
        1,
        "The round pegs in the square holes.",
        "people who never fit the slot the world puts them in",
    ),
    Paraphrase(
        "py-pdf__sample-files/021-pdfa/crazyones-pdfa.pdf",
        1,
        "gaze at a red planet and see a laboratory on wheels?",
        "looking at Mars and imagining a rolling science lab",
    ),
    Paraphrase(
        "py-pdf__sample-files/021-pdfa/crazyones-pdfa.pdf",
        1,
        "the people who are crazy enough to think they can change the world,",
        "those mad enough to believe they can transform society are the ones who succeed",
    ),
    # IRS Form 1040NR (2007).
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/f1040nr.pdf",
        1,
        "Give address outside the United States to which you want any refund check mailed.",
        "where my reimbursement should be posted if I live abroad",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/f1040nr.pdf",
        1,
        "Do not check box 7b if your spouse had any U.S. gross income.",
        "no exemption for my wife if she earned money in America",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/f1040nr.pdf",
        5,
        "entering and leaving the United States at frequent intervals, give name of country",
        "what to list for travel dates if I cross the northern or southern border often",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/f1040nr.pdf",
        5,
        "Did you give up your permanent residence as an immigrant in the United States",
        "did I surrender my green card status during the year",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/f1040nr.pdf",
        5,
        "A What country issued your passport? B Were you ever a U.S. citizen?",
        "which government gave me my travel papers",
    ),
    # IRS instructions for Form 1040NR (2007): three columns, read line by line across them,
    # so a verbatim snippet is at most one column's line.
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/i1040nr.pdf",
        1,
        "rate for business use of your vehicle is",
        "allowance for driving my own car for my job",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/i1040nr.pdf",
        2,
        "Days you commute to work in the",
        "do daily trips across the border for a job count toward my stay here",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/i1040nr.pdf",
        3,
        "the return for a deceased person who",
        "who must submit the final tax filing for someone who has died",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/i1040nr.pdf",
        4,
        "time to pay your income tax. The tax is",
        "does an extension for filing also push back the payment deadline",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/i1040nr.pdf",
        24,
        "be nine digits. The first two digits must",
        "how many numerals make up a bank transit code",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/i1040nr.pdf",
        25,
        "have up to 60 months to pay. However,",
        "longest period allowed to settle a tax balance in monthly chunks",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/i1040nr.pdf",
        30,
        "penalty for each failure to report the required information.",
        "what fine applies if I omit the treaty-based position statement",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/i1040nr.pdf",
        31,
        "with taxpayers via emails. Also, the IRS",
        "does the tax agency ever send unsolicited messages to my inbox",
    ),
    # Shinyama and Sekine, Preemptive Information Extraction (NAACL 2006).
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        1,
        "require a lot of time and human effort to tune for a new scenario",
        "why adapting extraction tools to a new domain is so costly",
        held_out=True,
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        3,
        "if the word-based similarity between two articles is too small",
        "keeping stories with little vocabulary overlap out of the same group",
        held_out=True,
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        4,
        "the crawler can correctly take the main texts from about 90% of the pages",
        "how reliably did the scraper pull article bodies off news websites",
        held_out=True,
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        5,
        "took only the five most highly weighted entities from each basic cluster",
        "how many top-scoring named things per group were kept to curb combinations",
        held_out=True,
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        5,
        "We used only the first ten sentences in each article for getting basic patterns",
        "why only the opening lines of each story are mined",
        held_out=True,
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        6,
        "We used twelve newspapers published mainly in the U.S.",
        "how many American papers supplied the stories and over what period",
        held_out=True,
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        6,
        "If at least half of the rows can fit the",
        "when did the human judge count an output grid as coherent",
        held_out=True,
    ),
    # Slides in Japanese on finding named entities in comparable news: queries in English,
    # one in Japanese; snippets are counted in Japanese words, not spaces.
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/nlp2004slides.pdf",
        4,
        "は1995年の New York Times (14 万記事) に１回しか現れない。",
        "a Japanese place name appears only once in a year of an American paper",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/nlp2004slides.pdf",
        13,
        "２社の新聞記事 A, B を日付ごとに揃 え、各日付における単語 w"
        " のドキュ メント頻度 (DF) を並べたベクトル",
        "build a vector of daily document counts of a word for each of two papers",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/nlp2004slides.pdf",
        15,
        "1995年の Los Angels Times お よび Reuters の記事１年分",
        "which two news sources and how many stories from one year were used",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/nlp2004slides.pdf",
        28,
        "現在の手法だと、 “the” などもスコアが高くなっ てしまう。",
        "冠詞のようなありふれた語まで高い点数になる欠点",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/nlp2004slides.pdf",
        30,
        "スコアが 0.6 以上の単語: - 80 / 90 (適合率: 89%, 再現率: 17%)",
        "precision and recall for terms scoring at least point six",
    ),
    # Soria-Comas et al., Individual Differential Privacy (IEEE TIFS 2016).
    Paraphrase(
        "pdfminer__pdfminer.six/samples/contrib/issue-1061-colour-space-stack.pdf",
        1,
        "two main approaches exist in statistical disclosure control",
        "publishing a masked copy of the records versus answering queries on the real ones",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/contrib/issue-1061-colour-space-stack.pdf",
        2,
        "the trusted party is not allowed to use its knowledge of the actual data set",
        "in the usual definition, can the curator exploit the real records when adding randomness",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/contrib/issue-1061-colour-space-stack.pdf",
        3,
        "Obviously, the global sensitivity upper-bounds the local sensitivity.",
        "the worst case over the whole domain always caps the variation at one dataset",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/contrib/issue-1061-colour-space-stack.pdf",
        4,
        "confidential data become less sensitive over time, which allows relaxing privacy"
        " parameters for older data.",
        "loosening protection for records as they age",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/contrib/issue-1061-colour-space-stack.pdf",
        4,
        "the height of I is two inches above the average height of the population",
        "an attacker who knows someone is taller than the national mean learns their stature",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/contrib/issue-1061-colour-space-stack.pdf",
        6,
        "of sanitized data must be safe as long as no sensitive information is incorporated",
        "transforming already protected outputs afterwards should not weaken the guarantee",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/contrib/issue-1061-colour-space-stack.pdf",
        10,
        "rather than querying for the maximum value, we can query for the second",
        "trick of asking for the runner-up largest entry instead of the top one",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/contrib/issue-1061-colour-space-stack.pdf",
        11,
        "Range queries behave well under DP: their sensitivity is 1.",
        "why counting records inside an interval needs little added noise",
    ),
    # A Civil War diary, The Siege of Vicksburg (a scan with an OCR text layer).
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        1,
        "are now living in caves dug out of the sides of the hills.",
        "where did the townspeople shelter from the bombardment",
        held_out=True,
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        2,
        "Many a family is dependent upon the thirteen dollars a month drawn here",
        "how much monthly pay did a soldier send to support his household",
        held_out=True,
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        3,
        "Cannister shot is a tin cylinder with iron heads, filled with balls",
        "what artillery round is a metal can holding lead pellets",
        held_out=True,
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        4,
        "which it took ten yoke of oxen to haul, one at a time,",
        "how many draft animals were needed to drag each heavy cannon into position",
        held_out=True,
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        5,
        "a hard tack was tossed into it by one of our boys",
        "how near the lines were: a soldier threw a cracker into the enemy fort",
        held_out=True,
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        6,
        "the garrison over there is already familiar with mule meat and scanty meal rations",
        "what the starving defenders of the town were reduced to eating",
        held_out=True,
    ),
    # The National Hydro Network (Canada) data model.
    Paraphrase(
        "py-pdf__pypdf/resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf",
        3,
        "A new Feature type value is added for inland water",
        "which category was introduced for lakes and rivers away from the coast",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf",
        6,
        "describes the position of the feature without describing its nature",
        "which part of a spatial object gives location but not kind",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf",
        6,
        "while a Linear Event is defined by a starting and ending measurement",
        "how stretches along a river are located, compared with single spots",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf",
        6,
        "mandatory data (black boxes) and optional data (grey boxes)",
        "what the dark and shaded boxes in the specification figure stand for",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf",
        7,
        "Four packages constitute the NHNC1 : Hydro Network, Hydrographic, Hydro Events and"
        " Metadata.",
        "which building blocks make up this Canadian water schema",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf",
        7,
        "text placement on paper or computer screen are excluded from consideration",
        "does the place-name part handle label positioning on maps or displays",
    ),
    # Miyazawa Kenji's preface to Spring and Asura (Japanese).
    Paraphrase(
        "pdfminer__pdfminer.six/samples/jo.pdf",
        1,
        "宇宙塵をたべ、または空気や塩水を呼吸しながら",
        "a poem line about eating cosmic dust while breathing air and brine",
    ),
    # The Copyright Office's summary of the DMCA (1998).
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/dmca.pdf",
        1,
        "President Clinton on October 28, 1998. The legislation implements two 1996 World",
        "which head of state approved this statute and on what day",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/dmca.pdf",
        5,
        "identifying and analyzing elements of the program necessary to achieve interoperability",
        "may I take software apart so that it works with other programs",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/dmca.pdf",
        9,
        "states that nothing in section 512 requires a service provider to monitor its service",
        "are internet companies obliged to police what their users post",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/dmca.pdf",
        12,
        "must put the material back up within 10-14 business days after receiving",
        "how soon a host must restore content after the uploader disputes a removal",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/dmca.pdf",
        16,
        "actors to obtain residual payments for the exploitation of motion pictures",
        "film creatives collecting royalties when the studio goes under",
    ),
    # A Brief History of Debian (a short book, Debian Documentation Team).
    Paraphrase(
        "debian__debian-history/usr/share/doc/debian-history/docs/project-history.en.pdf",
        7,
        "The name comes from the names of the creator of Debian, Ian Murdock, and his wife, Debra",
        "why is it called that: a blend of the husband's and spouse's forenames",
        held_out=True,
    ),
    Paraphrase(
        "debian__debian-history/usr/share/doc/debian-history/docs/project-history.en.pdf",
        7,
        "may accept contributions that are tax deductible in the United States.",
        "charity that lets American givers write off their gifts",
        held_out=True,
    ),
    Paraphrase(
        "debian__debian-history/usr/share/doc/debian-history/docs/project-history.en.pdf",
        8,
        "Stefano Zacchiroli led Debian from April 2010 until April 2013.",
        "who led Debian from 2010 to 2013",
        held_out=True,
    ),
    Paraphrase(
        "debian__debian-history/usr/share/doc/debian-history/docs/project-history.en.pdf",
        10,
        "first release to include cryptographic software due to the restrictions for exportation",
        "which edition was the earliest to carry ciphers after Washington eased its rules",
        held_out=True,
    ),
    Paraphrase(
        "debian__debian-history/usr/share/doc/debian-history/docs/project-history.en.pdf",
        12,
        "a CD-ROM manufacturer mistakenly labelled an unreleased version as Debian 1.0",
        "why did the numbering jump straight past one point zero",
        held_out=True,
    ),
    Paraphrase(
        "debian__debian-history/usr/share/doc/debian-history/docs/project-history.en.pdf",
        13,
        "which would include all of the Linux software useful to ham radio operators.",
        "a disc for wireless hobbyists that got shelved",
        held_out=True,
    ),
    Paraphrase(
        "debian__debian-history/usr/share/doc/debian-history/docs/project-history.en.pdf",
        15,
        "Stormix declared bankruptcy on January 17th 2001",
        "vendors of derivative editions that folded or quit around the turn of the century",
        held_out=True,
    ),
    Paraphrase(
        "debian__debian-history/usr/share/doc/debian-history/docs/project-history.en.pdf",
        23,
        "the University of Twente Network Operations Center (NOC) caught fire.",
        "blaze at a Dutch campus computer centre wiped out a box with patches and databases",
        held_out=True,
    ),
    # The Filesystem Hierarchy Standard 3.0 (a specification, the Linux Foundation).
    Paraphrase(
        "debian__debian-policy/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf",
        3,
        "This release is dedicated to the memory of Christopher Yeoh",
        "which late co-worker is remembered at the front of the document",
    ),
    Paraphrase(
        "debian__debian-policy/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf",
        9,
        "Static and variable files should be segregated",
        "why keep programs that never vary apart from ones that get rewritten",
    ),
    Paraphrase(
        "debian__debian-policy/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf",
        20,
        "/opt is reserved for the installation of add-on application software packages.",
        "where should optional vendor suites keep their bits",
    ),
    Paraphrase(
        "debian__debian-policy/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf",
        24,
        "files and directories located in /tmp be deleted whenever the system is booted.",
        "should scratch space be wiped at every startup",
    ),
    Paraphrase(
        "debian__debian-policy/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf",
        42,
        "store the process identifier (PID) as a ten byte ASCII decimal number",
        "how a program claims exclusive use of a modem line, and what goes inside that marker",
    ),
    Paraphrase(
        "debian__debian-policy/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf",
        43,
        "The logical location for this directory was changed from /var/spool/mail",
        "where do inboxes belong, and why was their spot relocated",
    ),
    Paraphrase(
        "debian__debian-policy/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf",
        44,
        "Data in /var/spool represents work to be done in the future",
        "a holding area for tasks that something will get round to afterwards",
    ),
    # R Data Import/Export (a manual, R Core Team).
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-data.pdf",
        7,
        "can take far more time than the statistical analysis itself",
        "moving figures between programs often eats more hours than the maths itself",
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-data.pdf",
        14,
        "However, we know of one exception, UTF-8 files with a BOM.",
        "a CSV saved with a byte-order mark won't load on Linux",
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-data.pdf",
        21,
        "R is not well suited to extremely large data sets.",
        "why the stats environment struggles with enormous datasets that exceed RAM",
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-data.pdf",
        29,
        "a not uncommon request is to read such a file into R as a matrix.",
        "turning a photo into a numeric grid for analysis",
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-data.pdf",
        36,
        "The first piece of advice is to avoid doing so if possible!",
        "top tip for pulling in a workbook from Microsoft's office suite: don't",
    ),
    # Debian New Maintainers' Guide (a book-length guide).
    Paraphrase(
        "debian__maint-guide/usr/share/doc/maint-guide/maint-guide.en.pdf",
        8,
        "you cannot become an official Debian Developer (DD) overnight",
        "can a newcomer be granted complete membership in a single day",
    ),
    Paraphrase(
        "debian__maint-guide/usr/share/doc/maint-guide/maint-guide.en.pdf",
        13,
        "You may also adopt a package whose maintainer has filed a Request for Adoption (RFA)",
        "picking up an unowned bundle that no one cares for any longer",
    ),
    Paraphrase(
        "debian__maint-guide/usr/share/doc/maint-guide/maint-guide.en.pdf",
        15,
        "There is another old Latin saying: fabricando fit faber (practice makes perfect).",
        "ancient proverb that you learn a craft by doing it",
    ),
    Paraphrase(
        "debian__maint-guide/usr/share/doc/maint-guide/maint-guide.en.pdf",
        41,
        "Upgrades to the new version should be silent and non-intrusive",
        "an update should slip in silently so folks only spot that earlier glitches vanished",
    ),
    Paraphrase(
        "debian__maint-guide/usr/share/doc/maint-guide/maint-guide.en.pdf",
        51,
        "you should create dummy packages with different versions to test your package in advance",
        "rehearse putting it on, rolling it back and wiping it out before shipping",
    ),
    Paraphrase(
        "debian__maint-guide/usr/share/doc/maint-guide/maint-guide.en.pdf",
        51,
        "for error; a sure policy violation or packaging error.",
        "what the one-letter tags in the checker's report stand for",
    ),
    # Octave Quick Reference (a reference card in three columns; the structure reader
    # reorders its lines, so snippets are short).
    Paraphrase(
        "debian__octave-doc/usr/share/doc/octave/refcard-a4.pdf",
        1,
        "yank the most recently killed text",
        "paste in what I just cut while typing",
    ),
    Paraphrase(
        "debian__octave-doc/usr/share/doc/octave/refcard-a4.pdf",
        1,
        "Declare a variable as static to a function",
        "keep a local's contents alive across invocations",
    ),
    Paraphrase(
        "debian__octave-doc/usr/share/doc/octave/refcard-a4.pdf",
        2,
        "Execute cleanup no matter how control exits body.",
        "guarantee tidy-up code runs whatever happens in a block",
    ),
    Paraphrase(
        "debian__octave-doc/usr/share/doc/octave/refcard-a4.pdf",
        3,
        "imread (file)",
        "bring a photo from disk into the workspace",
    ),
    # GLPK's note on the CNF satisfiability problem (a technical note).
    Paraphrase(
        "debian__glpk-doc/usr/share/doc/glpk-doc/cnfsat.pdf",
        1,
        "because only a feasible solution needs to be found",
        "why nothing is optimised when we only ask if some setting of the unknowns works",
    ),
    Paraphrase(
        "debian__glpk-doc/usr/share/doc/glpk-doc/cnfsat.pdf",
        2,
        "in which case the routine decompresses it",
        "can it load a zipped one straight away without unpacking first",
    ),
    Paraphrase(
        "debian__glpk-doc/usr/share/doc/glpk-doc/cnfsat.pdf",
        3,
        "Each clause is terminated by the value 0.",
        "how does the text layout signal where one clause stops",
    ),
    Paraphrase(
        "debian__glpk-doc/usr/share/doc/glpk-doc/cnfsat.pdf",
        4,
        "Chalmers University of Technology, Sweden",
        "which bundled engine from a Gothenburg college does the heavy lifting",
    ),
    Paraphrase(
        "debian__glpk-doc/usr/share/doc/glpk-doc/cnfsat.pdf",
        6,
        "is efficient mainly for problems, where most constraints (rows) fall into",
        "which kinds of restrictions does the whole-valued search cope with well",
    ),
    # Beamer's example conference talk on SNP haplotyping (slides; a slide's chunk
    # can run on over the next build of it, so answers sit on a slide that starts one).
    Paraphrase(
        "debian__texlive-latex-recommended-doc/usr/share/doc/texlive-doc/latex/beamer/beamerexample-conference-talk.pdf",
        6,
        "This can be caused by chromosomal crossing-over effects.",
        "why might no clean evolutionary tree fit the DNA readings",
    ),
    Paraphrase(
        "debian__texlive-latex-recommended-doc/usr/share/doc/texlive-doc/latex/beamer/beamerexample-conference-talk.pdf",
        16,
        "is equivalent to finding optimal graph colorings.",
        "splitting the best way is as tough as colouring a map so that neighbours never match",
    ),
    Paraphrase(
        "debian__texlive-latex-recommended-doc/usr/share/doc/texlive-doc/latex/beamer/beamerexample-conference-talk.pdf",
        4,
        "The rows of the matrix are taxa / individuals.",
        "in the input table, is each line a person and each column a marker position",
    ),
    Paraphrase(
        "debian__texlive-latex-recommended-doc/usr/share/doc/texlive-doc/latex/beamer/beamerexample-conference-talk.pdf",
        25,
        "Optimal ppp-partitions of genotype matrices can be computed in polynomial time.",
        "when every tree must be unbranched, can the best grouping be found quickly",
    ),
    # Heiko Oberdiek's EuroTeX'99 talk on hyperref (slides).
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/hyperref/slides.pdf",
        6,
        "Reading input lines",
        "the body-part analogy for how the engine turns what it takes in into output",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/hyperref/slides.pdf",
        8,
        "No manipulation of boxes, no mathematics, no colors",
        "why headings copied into the sidebar can't keep their typeface, colour or maths",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/hyperref/slides.pdf",
        18,
        "There is no “rerun” warning.",
        "the navigation tree only shows up after compiling twice, with no reminder to do so",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/hyperref/slides.pdf",
        23,
        "\\section{\\texorpdfstring{H$ 2$O}{Water}}",
        "a heading with its own plain-text form for the side pane, e.g. a formula spelled out",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/hyperref/slides.pdf",
        29,
        "Thumbnail sketches of the pages.",
        "miniature previews as another way to jump around a file",
        held_out=True,
    ),
    # LaTeX News, issue 32 (a newsletter).
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltnews32.pdf",
        3,
        "the argument to \\include can contain a file name containing spaces.",
        "pulling in a chapter stored under a title with blanks in it used to break",
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltnews32.pdf",
        3,
        "define commands that act differently when used in bold context",
        "detect whether the surrounding words are in heavy weight",
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltnews32.pdf",
        4,
        "three new CamelCase commands as the official interface for such tests",
        "find out if the kernel is recent enough before relying on something",
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltnews32.pdf",
        5,
        "\\ShowCommand knows that and with \\ShowCommand\\frac the terminal will show",
        "inspect what a macro truly expands to when the usual display only shows a wrapper",
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltnews32.pdf",
        6,
        "ends up with a file named file.svg.png.",
        "a drawing turned into a second picture kind keeps both suffixes",
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltnews32.pdf",
        7,
        "The babel package provides about 250 of these files",
        "how many ready-made region descriptors come with the language-switching bundle",
    ),
    # The LaTeX Project Public License 1.3c (a licence).
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/lppl.pdf",
        2,
        "In particular, the act of running the Work is not restricted",
        "am I limited in merely executing the software",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/lppl.pdf",
        2,
        "Distribution of only part of the Work is considered modification of the Work",
        "handing out only a few pieces counts as altering it",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/lppl.pdf",
        4,
        "The entire risk as to the quality and performance of the Work is with you.",
        "who pays if the software turns out broken",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/lppl.pdf",
        5,
        "the indicated means of communication for a period of six months",
        "after how long without contact is a package treated as abandoned",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/lppl.pdf",
        6,
        "It is wise never to modify a component of the Work, even for your own personal use",
        "why tweaking my private copy is risky even if I never plan to share it",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/lppl.pdf",
        8,
        "provide a way for the licensee to determine which files constitute the Work.",
        "how recipients can tell what exactly belongs to the bundle",
        held_out=True,
    ),
    # The LaTeX3 Project (a project report and appeal for funds, 1999).
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltx3info.pdf",
        1,
        "releasing updated versions every six months",
        "how often does the crew put out a refreshed edition",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltx3info.pdf",
        2,
        "(e.g. quality, portability, stability and availability) TEX spread very rapidly",
        "why did the typesetter catch on so fast around the globe",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltx3info.pdf",
        5,
        "LATEX: A Document Preparation System Leslie Lamport, Addison Wesley, 2nd ed, 1994.",
        "recommended printed guides for learning the present release",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-base-doc/usr/share/doc/texlive-doc/latex/base/ltx3info.pdf",
        6,
        "Cheques should be payable to the user group (TUG or UKTUG)",
        "whom should a paper check be written out to",
        held_out=True,
    ),
    # Parashchenko, The cals package (a TUGboat article, 2011).
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/cals/tb101parashchenko.pdf",
        1,
        "using existing LATEX packages and decided to write my own.",
        "why build yet another grid add-on: buyers insisted on designs nothing else could produce",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/cals/tb101parashchenko.pdf",
        5,
        "But if rows are very tall, it may be useful to break even within a row",
        "can one very high line of a grid be broken over onto the next sheet",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/cals/tb101parashchenko.pdf",
        6,
        "different widths for a common border of adjoined cells, the greater value wins.",
        "neighbouring squares ask for unequal edge thickness: what happens",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/cals/tb101parashchenko.pdf",
        8,
        "the macro must collect a potentially big argument, which might degrade performance.",
        "avoid slurping a huge chunk as an input to a macro, for speed",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/cals/tb101parashchenko.pdf",
        9,
        "I wrote my tool in Python.",
        "how does the author verify his add-on, with a home-made harness in a scripting tongue",
        held_out=True,
    ),
    # ACM's sample journal article (the acmart template's guidance).
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/acmart/samples/sample-acmsmall.pdf",
        3,
        "Please do not substitute other typefaces.",
        "may I pick another font than the mandated one",
    ),
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/acmart/samples/sample-acmsmall.pdf",
        4,
        "Because tables cannot be split across pages, the best placement for them is typically",
        "where do grids of numbers best go, since they can't break over a leaf",
    ),
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/acmart/samples/sample-acmsmall.pdf",
        6,
        "must be unformatted plain text less than 2000 characters long (including spaces).",
        "maximum length of the accessibility wording that explains a picture",
    ),
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/acmart/samples/sample-acmsmall.pdf",
        8,
        "To Robert, for the bagels and explaining CMYK and color spaces.",
        "who gets thanked for breakfast rolls and help with printing inks",
    ),
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/acmart/samples/sample-acmsmall.pdf",
        8,
        "The last language indicated is the main language of the paper.",
        "for an article in several tongues, which one named counts as the principal",
    ),
    # A commercial invoice (a form).
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/invoice-class/doc/ducks.pdf",
        1,
        "Shipping cost",
        "what was charged for freight on this consignment",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/invoice-class/doc/ducks.pdf",
        1,
        "Exporting Carrier",
        "which courier firm carried the parcel",
        held_out=True,
    ),
    # A job application letter.
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/cv/ApplicationLetter.pdf",
        1,
        "received the Albert-Einstein award for re-inventing the weel.",
        "which prize did the job seeker get as a student",
    ),
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/cv/ApplicationLetter.pdf",
        1,
        "I studied General Economics in Germany.",
        "what did the candidate major in, and where",
    ),
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/cv/ApplicationLetter.pdf",
        1,
        "Hereby I wish to apply for a position at the Research Department of Employer Research",
        "what job is the writer hoping to get",
    ),
    # A screenplay sample.
    Paraphrase(
        "debian__texlive-humanities-doc/usr/share/doc/texlive-doc/latex/screenplay-pkg/screenplay-pkg-example.pdf",
        1,
        "That means that someone sabotaged the unit and killed the President!",
        "someone wrecked the gear and murdered the country's leader",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-humanities-doc/usr/share/doc/texlive-doc/latex/screenplay-pkg/screenplay-pkg-example.pdf",
        2,
        "The planetoid seems to have a thin crust covering a nickel-iron core.",
        "what is the little world's interior made of",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-humanities-doc/usr/share/doc/texlive-doc/latex/screenplay-pkg/screenplay-pkg-example.pdf",
        2,
        "He has a PARROT on his shoulder.",
        "which crew member has a bird perched on him",
        held_out=True,
    ),
    Paraphrase(
        "debian__texlive-humanities-doc/usr/share/doc/texlive-doc/latex/screenplay-pkg/screenplay-pkg-example.pdf",
        3,
        "I made the slugline DAY/NIGHT optional 'cause in space no-one can tell the time.",
        "why scene headers needn't say whether it is light or dark out in the cosmos",
        held_out=True,
    ),
    # A commercial invoice (a form).
    Paraphrase(
        "debian__texlive-latex-extra-doc/usr/share/doc/texlive-doc/latex/invoice-class/doc/ducks.pdf",
        1,
        "It is hereby certified that this invoice shows: (1) the actual price of the goods",
        "what does the sender solemnly declare about this paperwork",
        held_out=True,
    ),
    # A term report template (Hagenberg).
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/hagenberg-thesis/examples/HgbTermReport/main.pdf",
        1,
        "If you wish to write this report in German you should substitute the line",
        "typeset this coursework in Deutsch instead",
    ),
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/hagenberg-thesis/examples/HgbTermReport/main.pdf",
        4,
        "design decisions, algorithms used, interesting challenges faced on the way",
        "justify the frameworks picked and what you took away from the hurdles",
    ),
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/hagenberg-thesis/examples/HgbTermReport/main.pdf",
        5,
        "with sufficient granularity to enable an external person to continue working",
        "the engineering write-up must let an outsider pick things up and carry on",
    ),
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/hagenberg-thesis/examples/HgbTermReport/main.pdf",
        6,
        "Give a concise (and honest) summary of what has been accomplished and what not.",
        "last section should candidly admit what was left unfinished",
    ),
    Paraphrase(
        "debian__texlive-publishers-doc/usr/share/doc/texlive-doc/latex/hagenberg-thesis/examples/HgbTermReport/main.pdf",
        7,
        "The appendix is a good place to attach a user guide, screenshots",
        "where do screen captures and setup steps belong",
    ),
    # The R FAQ (questions and answers, R Core Team).
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-FAQ.pdf",
        7,
        "R was initially written by Ross Ihaka and Robert Gentleman",
        "who wrote the original at a Kiwi campus",
        held_out=True,
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-FAQ.pdf",
        14,
        "one can use R for commercial purposes (e.g., in business or in consulting).",
        "may a firm rely on it for paid advisory jobs",
        held_out=True,
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-FAQ.pdf",
        33,
        "it is by default turned into a vector.",
        "slicing out one line of a 2-D grid silently collapses it to a flat list",
        held_out=True,
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-FAQ.pdf",
        35,
        "(Because the word “Trellis” has been claimed as a trademark we do not use it in R.",
        "why the multi-panel charting add-on got an alternative moniker",
        held_out=True,
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-FAQ.pdf",
        50,
        "report facts, not hypotheses or categorizations.",
        "when sending a defect notice, give what happened, not your hunch about why",
        held_out=True,
    ),
    Paraphrase(
        "debian__r-doc-pdf/usr/share/R/doc/manual/R-FAQ.pdf",
        42,
        "How can I save the result of each iteration in a loop into a separate file?",
        "write every pass of a loop to its own numbered output on disk",
        held_out=True,
    ),
)
