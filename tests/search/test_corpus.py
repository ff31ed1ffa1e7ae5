"""Every file of the test corpus (tests/corpus/) ends as its manifest's `expect` column says.

At the extraction level, as a job reads a file with OCR on (INGEST_OCR=auto): read_document
in its sandbox, finding the pages that need OCR, then, if there are any, read again by an
OCR child, as the `ocr` lane does; then pages_to_index. The service's default limits.
"succeeded" means pages with text and no error.
"""

from concurrent.futures import ThreadPoolExecutor

import pytest

from search.pipeline.errors import PermanentError, TransientError
from search.pipeline.extract import pages_to_index, read_document
from search.pipeline.page import OcrOrder
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
    # Another type, read by its own reader (the PDF readers alone refuse it: not_a_pdf).
    "succeeded_as:odt": {"succeeded"},
    # No type read here: the upload API refuses it, and a reader asked anyway takes it
    # for a PDF, which it is not.
    "rejected:unsupported_type": {"not_a_pdf"},
}


def outcome(row: dict[str, str]) -> str:
    path, limits = CORPUS / row["file"], {"max_pages": 2000, "timeout": 120, "memory_mb": 1024}
    try:
        order = OcrOrder("find")
        extracted = read_document(path, ocr=order, **limits)
        if extracted.scans:  # on to the OCR lane
            order = OcrOrder("read")
            extracted = read_document(path, ocr=order, **limits)
        pages_to_index(extracted, order)
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
