"""The OCR bench's measure: reading a page's columns in another order costs next to
nothing, misreading it costs what it should."""

import random

from rapidfuzz.distance import Levenshtein

from tests.bench.ocr.metric import cer, normalise, word_recall

LEFT = [
    "The seller delivers the goods within thirty days",
    "of the order, and the buyer pays the invoice",
    "within sixty days of the delivery of the goods.",
]
RIGHT = [
    "Either party may end this agreement by a notice",
    "in writing, sent ninety days before the end of",
    "the year in which the notice is to take effect.",
]
# The text layer of a two-column page: the left column, then the right one.
REFERENCE = "\n".join(LEFT + RIGHT)


def garbled(text: str, share: float, seed: int = 1) -> str:
    """`text` with `share` of its letters replaced by others."""
    rng = random.Random(seed)
    return "".join(
        rng.choice("xqzjkv") if c.isalpha() and rng.random() < share else c for c in text
    )


def test_ocr_reading_across_the_columns_scores_near_nothing():
    # OCR read the page line by line across both columns: each line of it is half of
    # one column's line and half of the other's, in the wrong order for a plain distance.
    across = "\n".join(f"{left}\n{right}" for left, right in zip(LEFT, RIGHT, strict=True))
    swapped = "\n".join(RIGHT + LEFT)

    for ocr in (across, swapped):
        assert cer(ocr, REFERENCE).rate < 0.01
        found, total = word_recall(ocr, REFERENCE)
        assert found == total
    plain = Levenshtein.distance(normalise(swapped), normalise(REFERENCE)) / len(REFERENCE)
    assert plain > 0.5, "a plain edit distance would call the swapped columns mostly wrong"


def test_a_table_read_along_its_rows_against_a_text_layer_that_has_it_by_columns():
    names = ["Income from wages", "Interest received", "Dividends on shares"]
    amounts = ["twelve thousand dollars", "three hundred dollars", "ninety five dollars"]
    by_columns = "\n".join(names + amounts)
    by_rows = "\n".join(f"{name} {amount}" for name, amount in zip(names, amounts, strict=True))

    assert cer(by_rows, by_columns).rate < 0.05
    assert cer(by_rows, by_columns, split=False).rate > 0.4, "unless lines are kept whole"
    assert cer(garbled(by_rows, 0.3), by_columns).rate > 0.15


def test_a_misread_page_scores_about_its_share_of_wrong_letters():
    errors = cer(garbled(REFERENCE, 0.2), REFERENCE)

    assert 0.1 < errors.rate < 0.25
    assert errors.edits > 0
    found, total = word_recall(garbled(REFERENCE, 0.2), REFERENCE)
    assert found < 0.7 * total


def test_text_that_is_not_on_the_page_counts_as_inserted_and_missing_text_as_deleted():
    invented = REFERENCE + "\nQuarterly figures are attached in the annex below."
    errors = cer(invented, REFERENCE)
    assert errors.insertions == len("Quarterly figures are attached in the annex below.")
    assert errors.edits == errors.deletions == 0

    half = cer("\n".join(LEFT), REFERENCE)
    assert half.deletions == len(" ".join(RIGHT))
    assert 0.45 < half.rate < 0.55
    assert cer("", REFERENCE).rate == 1.0


def test_a_line_matches_the_text_it_is_like_not_a_scrap_it_contains():
    # Once the longest line has taken its text, a scrap of the reference is left ("the
    # goods") that the next line contains whole: the line must still be compared with
    # its own text, one letter off, and the scrap count as missing.
    first = "Either party may end this agreement by a notice in writing, sent in time."
    second = "The seller delivers the goods within thirty days"
    reference = f"the goods\n{first}\n{second}"

    errors = cer(f"{first}\nThe seller delivers the goods within thirty dags", reference)

    assert (errors.edits, errors.insertions, errors.deletions) == (1, 0, len("the goods"))


def test_normalising_joins_broken_words_and_unifies_dashes_ligatures_and_quotes():
    text_layer = "a con\u0002\r\ntract \u2013 the \ufb01rst \u201cclause\u201d"
    ocr = 'a con-\ntract - the first "clause"'

    assert normalise(text_layer) == normalise(ocr) == 'a contract - the first "clause"'
    assert cer(ocr, text_layer).total == 0
