"""What every ZIP-based file passes first (search/pipeline/formats/zipguard.py)."""

import io
import zipfile

import pytest

from search.pipeline.errors import Corrupt, TooComplex
from search.pipeline.formats import zipguard
from tests.search.formats.files import read


def archive(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as made:
        for name, data in entries.items():
            made.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("code", ["docx", "pptx", "xlsx", "odt", "odp", "ods"])
def test_a_file_that_is_no_zip_is_damaged(code):
    with pytest.raises(Corrupt, match="is damaged: it is not a readable ZIP archive"):
        read(b"PK\x03\x04 but nothing after", code)


def test_a_decompression_bomb_is_refused_before_anything_unpacks():
    bomb = archive({"word/document.xml": b"\0" * (20 * 1024 * 1024)})

    with pytest.raises(TooComplex, match="decompression bomb"):
        read(bomb, "docx")


def test_too_many_entries(monkeypatch):
    monkeypatch.setattr(zipguard, "MAX_ENTRIES", 5)

    with pytest.raises(TooComplex, match="holds 6 files"):
        read(archive({f"f{n}": b"x" for n in range(6)}), "xlsx")


def test_too_much_in_all(monkeypatch):
    monkeypatch.setattr(zipguard, "MAX_TOTAL_BYTES", 1000)

    with pytest.raises(TooComplex, match="would unpack to"):
        read(archive({"a": b"a" * 600, "b": b"b" * 600}), "pptx")
