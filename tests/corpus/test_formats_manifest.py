"""The corpus of files beyond PDF (`formats/`, `formats.tsv`) is what its manifest says:
every row's file is there with its size, `search.file_types.detect` tells its type from
its first bytes, and every source folder has its licence. Plain pytest: no database."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from search.file_types import BY_CODE, HEAD_BYTES, Unsupported, detect

CORPUS = Path(__file__).resolve().parent
FORMATS = CORPUS / "formats"
COLUMNS = [
    "file",
    "source_repo",
    "source_commit",
    "source_path",
    "bytes",
    "type",
    "pages",
    "expect",
    "phrases",
    "note",
]
PAGED = {"png", "jpeg", "tiff", "webp", "pptx", "odp"}
EXPECTS = re.compile(
    r"succeeded|refused:unsupported_type|refused:legacy_office_format|failed:[a-z_]+"
)


def _rows() -> list[dict[str, str]]:
    with open(CORPUS / "formats.tsv", newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        assert reader.fieldnames == COLUMNS
        return list(reader)


ROWS = _rows()


@pytest.mark.parametrize("row", [pytest.param(row, id=row["file"]) for row in ROWS])
def test_row_names_its_file_and_says_what_to_expect(row: dict[str, str]) -> None:
    path = CORPUS / row["file"]
    assert path.is_file()
    assert path.stat().st_size == int(row["bytes"])
    folder, _, source_path = row["file"].removeprefix("formats/").partition("/")
    assert source_path == row["source_path"]
    assert re.fullmatch(r"[\w.-]+__[\w.+-]+", folder), folder
    assert row["source_repo"].startswith(("pypi:", "debian:")) or re.fullmatch(
        r"[\w.-]+/[\w.-]+", row["source_repo"]
    )
    assert row["source_commit"]
    kind = row["type"]
    assert kind in BY_CODE or kind in {"legacy", "unsupported"}
    assert EXPECTS.fullmatch(row["expect"])
    if kind == "legacy":
        assert row["expect"] == "refused:legacy_office_format"
    elif kind == "unsupported":
        assert row["expect"] == "refused:unsupported_type"
    else:
        assert not row["expect"].startswith("refused:")
    if kind in PAGED:
        assert int(row["pages"]) >= 1
    else:
        assert row["pages"] == ""
    for phrase in filter(None, row["phrases"].split(" | ")):
        assert len(phrase.split()) >= 3, phrase


@pytest.mark.parametrize("row", [pytest.param(row, id=row["file"]) for row in ROWS])
def test_detect_tells_the_type_from_the_head(row: dict[str, str]) -> None:
    path = CORPUS / row["file"]
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    found = detect(head, name=path.name)
    if row["type"] in {"legacy", "unsupported"}:
        assert isinstance(found, Unsupported)
        assert found.legacy == (row["type"] == "legacy")
    else:
        assert not isinstance(found, Unsupported), found
        assert found.code == row["type"]


def test_every_file_has_a_row_and_every_folder_a_licence() -> None:
    on_disk = {path.relative_to(CORPUS).as_posix() for path in FORMATS.rglob("*") if path.is_file()}
    assert on_disk == {row["file"] for row in ROWS}
    assert len(ROWS) == len(on_disk)
    for folder in sorted(path.name for path in FORMATS.iterdir()):
        assert list((CORPUS / "LICENSES").glob(f"{folder}.*")), folder


def test_corpus_stays_small() -> None:
    sizes = [int(row["bytes"]) for row in ROWS]
    assert max(sizes) < 3_000_000
    assert sum(sizes) < 15_000_000
