"""Bytes to text for the files that do not say their encoding for sure (plain text,
Markdown, web pages): never failing on one.

In order: a byte order mark; what the file declares (a web page's <meta charset>), when
it names an encoding Python knows; UTF-8, if the bytes are valid UTF-8; UTF-16 without a
mark, when every other byte is a NUL; else Windows-1252 when it fits about as well as
charset-normalizer's guess, else that guess; else Latin-1, in which every byte is a
character.
"""

from __future__ import annotations

import codecs

import charset_normalizer

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# charset-normalizer looks at this much of the file, in pieces it picks: enough to tell,
# and a bounded cost however long the file.
GUESS_BYTES = 256 * 1024
_WESTERN = ("cp1252", "latin_1", "iso8859_15")
WESTERN_SLACK = 0.25  # how much more "chaos" (odd characters) Windows-1252 may show


def decode(data: bytes, *, declared: str | None = None) -> str:
    """The text in `data`; `declared`: the encoding the file names for itself, if any."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(name, errors="replace")
    named = _known(declared) if declared else None
    if named:
        return data.decode(named, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    return data.decode(_guess(data), errors="replace")


def _known(name: str) -> str | None:
    try:
        found = codecs.lookup(name.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None
    # What browsers do: a page that says Latin-1 or ASCII is read as Windows-1252, its
    # superset (the quotes and dashes of 0x80-0x9f are what such pages mean by them).
    return "cp1252" if found in ("latin-1", "iso8859-1", "ascii") else found


def _guess(data: bytes) -> str:
    sample = data[:GUESS_BYTES]
    nuls_even, nuls_odd = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 2
    if half and nuls_odd > 0.4 * half and nuls_even < 0.05 * half:
        return "utf-16-le"
    if half and nuls_even > 0.4 * half and nuls_odd < 0.05 * half:
        return "utf-16-be"
    matches = charset_normalizer.from_bytes(sample)
    best = matches.best()
    if best is None:
        return "latin-1"
    # A short text fits several single-byte encodings about equally; Windows-1252, what
    # browsers fall back to, is the likeliest by far when it fits nearly as well.
    if best.encoding in _WESTERN or _western_fits(sample, best.chaos + WESTERN_SLACK):
        return "cp1252"
    return _known(best.encoding) or "latin-1"


def _western_fits(sample: bytes, chaos: float) -> bool:
    """Whether a Western code page reads `sample` with no more chaos than `chaos`.

    Asked outright: charset-normalizer stops trying code pages once some fit without
    chaos, so its list for English with one "ç" (0xE7) holds DOS cp850 ("þ") and
    Central European ones, and no Windows-1252 or Latin-1 to compare them with."""
    western = charset_normalizer.from_bytes(sample, cp_isolation=list(_WESTERN))
    return any(match.chaos <= chaos for match in western)
