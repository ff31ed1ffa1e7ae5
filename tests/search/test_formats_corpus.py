"""Every real file of the formats corpus (tests/corpus/formats.tsv) ends as its row says:
refused at the front door with its code, or read in the sandboxed child (images by OCR,
as the OCR lane reads them) into pages whose text holds the row's phrases, its structure
paged or not as its type is."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from documents.acceptance import Rejection, decide
from search import file_types
from search.pipeline.errors import PermanentError, TransientError
from search.pipeline.extract import Extracted, pages_to_index, read_document
from search.pipeline.page import OcrOrder
from tests.corpus.test_formats_manifest import ROWS
from tests.factories import CORPUS

LIMITS = {"max_pages": 2000, "timeout": 120, "memory_mb": 1024}
READ = [row for row in ROWS if not row["expect"].startswith("refused:")]
REFUSED = [row for row in ROWS if row["expect"].startswith("refused:")]


def outcome(row: dict[str, str]) -> tuple[str, Extracted | None]:
    path = CORPUS / row["file"]
    try:
        order = OcrOrder("find")
        extracted = read_document(path, ocr=order, structure=True, **LIMITS)
        if extracted.scans:  # on to the OCR lane
            order = OcrOrder("read")
            extracted = read_document(path, ocr=order, structure=True, **LIMITS)
        pages_to_index(extracted, order)
    except (PermanentError, TransientError) as exc:
        return f"failed:{exc.code}", None
    return "succeeded", extracted


@pytest.fixture(scope="module")
def outcomes() -> dict[str, tuple[str, Extracted | None]]:
    """Every file's outcome, two at a time (each read is its own process; 2 cores)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip([r["file"] for r in READ], pool.map(outcome, READ), strict=True))


def words(text: str) -> str:
    return " ".join(text.split()).lower()


@pytest.mark.parametrize("row", READ, ids=[row["file"] for row in READ])
def test_a_file_is_read_into_pages_holding_its_phrases(row, outcomes):
    ended, extracted = outcomes[row["file"]]

    assert ended == row["expect"]
    if extracted is None:
        return
    kind = file_types.BY_CODE[row["type"]]
    text = words(" ".join(page.text for page in extracted.pages))
    for phrase in filter(None, (p.strip() for p in row["phrases"].split("|"))):
        assert words(phrase) in text, phrase
    if row["pages"]:
        assert len(extracted.pages) == int(row["pages"])
    assert extracted.structure is not None
    assert extracted.structure.paged == kind.paged
    assert extracted.structure.blocks


@pytest.mark.parametrize("row", REFUSED, ids=[row["file"] for row in REFUSED])
def test_a_file_of_a_type_not_read_is_refused_at_the_front_door(row):
    path = CORPUS / row["file"]
    with open(path, "rb") as handle:
        decided = decide(handle.read(file_types.HEAD_BYTES), path.name)

    assert isinstance(decided, Rejection)
    assert f"refused:{decided.code}" == row["expect"]
