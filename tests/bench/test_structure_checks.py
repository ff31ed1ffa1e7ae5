"""The structure benchmark's checks (tests/bench/structure/checks.py) judge what they say,
and its corpus is the same on every run."""

from tests.bench.structure.candidates import flat
from tests.bench.structure.checks import (
    Absent,
    Before,
    Block,
    Heading,
    Neighbour,
    Present,
    Scored,
    headings_f1,
    score,
)
from tests.bench.structure.corpus import generated

GRID = (("Region", "Spring", "Summer"), ("North", "120", "135"), ("South", "98", "102"))


def passed(blocks: list[Block], *checks) -> list[bool]:
    results = []
    for check in checks:
        scored = Scored()
        score(blocks, [check], scored, "doc")
        results.append(not scored.misses)
    return results


def test_furniture_counts_only_when_a_reader_left_it_in_the_body():
    header = "Northwind - Annual Report"
    kept = [Block("paragraph", f"{header}\nThe depot shipped apples.", 1)]
    marked = [Block("page_header", header, 1), Block("paragraph", "The depot shipped apples.", 1)]

    assert passed(kept, Absent(header), Present("the depot shipped apples.")) == [False, True]
    assert passed(marked, Absent(header), Present("the depot shipped apples.")) == [True, True]


def test_a_word_hyphenated_across_lines_or_blocks_reads_as_one():
    blocks = [Block("paragraph", "the harbour infor-", 1), Block("paragraph", "mation desk", 2)]

    assert passed(blocks, Present("The harbour information desk")) == [True]


def test_order_is_the_body_order():
    blocks = [Block("paragraph", "Second part.", 1), Block("paragraph", "First part.", 1)]

    assert passed(blocks, Before("Second part.", "First part.")) == [True]
    assert passed(blocks, Before("First part.", "Second part.")) == [False]
    assert passed(blocks, Before("First part.", "Missing part.")) == [False]


def test_neighbours_are_looked_for_in_each_tables_grid():
    blocks = [Block("table", "", 1, cells=GRID), Block("table", "", 2, cells=(("West", "77"),))]

    assert (
        passed(
            blocks,
            Neighbour("North", "right", "120"),
            Neighbour("Summer", "below", "135"),
            Neighbour("98", "left", "South"),
            Neighbour("102", "above", "135"),
        )
        == [True] * 4
    )
    assert (
        passed(
            blocks,
            Neighbour("North", "left", "120"),
            Neighbour("135", "right", "South"),  # the next row's first cell is not to its right
            Neighbour("South", "below", "West"),  # another table
        )
        == [False] * 3
    )


def test_headings_need_their_level_and_extra_ones_cost_precision():
    blocks = [
        Block("title", "Annual Report", 1, level=0),
        Block("heading", "Overview", 1, level=2),
        Block("heading", "Appendix", 3, level=1),
    ]
    checks = [Heading("Annual Report", 0), Heading("Overview", 1)]

    assert passed(blocks, *checks) == [True, False]
    assert headings_f1(blocks, checks) == (1, 3, 2)


def test_the_corpus_is_the_same_on_every_run_and_the_flat_reading_keeps_its_furniture():
    first, second = generated(), generated()

    assert [(s.name, s.pages, s.checks) for s in first] == [
        (s.name, s.pages, s.checks) for s in second
    ]
    report = next(sample for sample in first if sample.name == "report")
    assert report.pages >= 2
    scored = Scored()
    score(flat("pdfminer")(report.pdf), report.checks, scored, report.name)
    assert scored.share("absent") == 0.0  # header and page numbers in the body
    present = scored.share("present")
    assert present is not None
    assert present > 0.5
