"""Every file of the test corpus (tests/corpus/) ends as its manifest's `expect` column says.

At the extraction level: extract_document (in its sandbox) then classify_text, with the
service's default limits. "succeeded" means pages with text and no error.
"""

from concurrent.futures import ThreadPoolExecutor

import pytest

from search.pipeline.classify import classify_text
from search.pipeline.errors import PermanentError, TransientError
from search.pipeline.extract import extract_document
from tests.factories import CORPUS, corpus_rows

ROWS = corpus_rows()

# What each `expect` accepts, as the error code (or "succeeded") extraction ends with.
ACCEPTED = {
    "succeeded": {"succeeded"},
    "failed:no_text": {"no_text"},
    "failed:encrypted": {"encrypted"},
    "failed:corrupt_or_no_text": {"corrupt", "no_text", "too_complex"},
    "rejected_or_failed:not_a_pdf": {"not_a_pdf"},
    # No "%PDF" in the first kilobyte: the upload API refuses them as not_a_pdf, as
    # extraction does; "corrupt" would be the worker's other clear answer.
    "rejected_or_failed:corrupt": {"not_a_pdf", "corrupt"},
}


def outcome(row: dict[str, str]) -> str:
    try:
        pages = extract_document(CORPUS / row["file"], max_pages=2000, timeout=120, memory_mb=1024)
        classify_text(pages)
    except (PermanentError, TransientError) as exc:
        return exc.code
    return "succeeded"


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """Every file's outcome, two at a time (each read is its own process; 2 cores).

    Slowest first (the manifest's seconds), so the longest file never starts last.
    """
    rows = sorted(ROWS, key=lambda row: float(row["seconds"] or 0), reverse=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return {
            row["file"]: result for row, result in zip(rows, pool.map(outcome, rows), strict=True)
        }


def test_the_manifest_lists_every_file_with_a_known_expectation():
    assert len(ROWS) == 76
    assert {row["expect"] for row in ROWS} <= set(ACCEPTED)
    assert all((CORPUS / row["file"]).is_file() for row in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[row["file"] for row in ROWS])
def test_the_file_ends_as_the_manifest_expects(row, outcomes):
    assert outcomes[row["file"]] in ACCEPTED[row["expect"]]
