"""Paraphrase queries over the corpus, written by hand for tests.bench.search: each describes
a passage in other words than its own, and names the file, page and a verbatim snippet of
the passage that answers it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paraphrase:
    file: str  # under tests/corpus/
    page: int  # 1-based
    snippet: str  # verbatim from the page's text, spaces collapsed
    query: str


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
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        3,
        "if the word-based similarity between two articles is too small",
        "keeping stories with little vocabulary overlap out of the same group",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        4,
        "the crawler can correctly take the main texts from about 90% of the pages",
        "how reliably did the scraper pull article bodies off news websites",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        5,
        "took only the five most highly weighted entities from each basic cluster",
        "how many top-scoring named things per group were kept to curb combinations",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        5,
        "We used only the first ten sentences in each article for getting basic patterns",
        "why only the opening lines of each story are mined",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        6,
        "We used twelve newspapers published mainly in the U.S.",
        "how many American papers supplied the stories and over what period",
    ),
    Paraphrase(
        "pdfminer__pdfminer.six/samples/nonfree/naacl06-shinyama.pdf",
        6,
        "If at least half of the rows can fit the",
        "when did the human judge count an output grid as coherent",
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
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        2,
        "Many a family is dependent upon the thirteen dollars a month drawn here",
        "how much monthly pay did a soldier send to support his household",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        3,
        "Cannister shot is a tin cylinder with iron heads, filled with balls",
        "what artillery round is a metal can holding lead pellets",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        4,
        "which it took ten yoke of oxen to haul, one at a time,",
        "how many draft animals were needed to drag each heavy cannon into position",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        5,
        "a hard tack was tossed into it by one of our boys",
        "how near the lines were: a soldier threw a cracker into the enemy fort",
    ),
    Paraphrase(
        "py-pdf__pypdf/resources/Seige_of_Vicksburg_Sample_OCR.pdf",
        6,
        "the garrison over there is already familiar with mule meat and scanty meal rations",
        "what the starving defenders of the town were reduced to eating",
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
)
