"""The structure benchmark's documents of each type (tests/bench/structure/formats.py):
each type's reader meets the targets, and each document is held to every kind of check
its type can have. Speed is the benchmark's to report, not asserted here."""

import pytest

from tests.bench.structure import formats
from tests.bench.structure.checks import kind_of

PROSE = {"present", "order", "table", "heading"}
# The kinds of check each type's document must carry: furniture where the type has it (a
# header and footer, a web page's navigation), tables and headings where it has them.
APPLIES = {
    "docx": PROSE | {"absent"},
    "pptx": PROSE,
    "xlsx": PROSE,
    "odt": PROSE | {"absent"},
    "odp": PROSE,
    "ods": PROSE,
    "html": PROSE | {"absent"},
    "markdown": PROSE,
    "text": {"present", "order", "heading"},
    "eml": {"present", "order"},
    "png": {"present", "order"},
    "tiff": {"present", "order"},
}
# (type, kind) a reader misses today, with why; asserted as known, not as met.
KNOWN_MISSES: dict[tuple[str, str], str] = {}


@pytest.fixture(scope="module")
def results():
    return {result.code: result for result in formats.scores()}


def test_there_is_a_document_of_each_type_with_each_kind_of_check_that_applies():
    kinds = {doc.code: {kind_of(check) for check in doc.checks} for doc in formats.documents()}

    assert kinds == APPLIES


def test_each_type_meets_its_targets(results):
    missed = {(code, kind) for code, result in results.items() for kind in result.missed()}

    assert missed == set(KNOWN_MISSES)
    for code, kinds in APPLIES.items():
        for kind in kinds:
            assert results[code].share(kind) is not None, (code, kind)
