"""JSON a client sent: whatever Python's parser cannot read is a ValueError that says why in
plain words, and under the API a 400 `parse_error` (JSONParser, the API's default parser).

json.loads fails on hostile text in two ways besides its JSONDecodeError: RecursionError
for arrays or objects nested deeper than the interpreter's recursion limit (about a
thousand levels: 100,000 '[' are a 100 KB body), which nothing catches, so a 500; and a
ValueError that advises calling sys.set_int_max_str_digits() for a whole number of more
digits than int() reads.
"""

import codecs
import json
from collections.abc import Mapping
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

# DRF's choice of charset (it refuses codecs that decompress), not in its type stubs.
from rest_framework.parsers import get_encoding  # type: ignore[attr-defined]
from rest_framework.utils.json import strict_constant

# The longest whole number read: int()'s own limit on text.
MAX_NUMBER_DIGITS = 4300
NESTED_TOO_DEEPLY = "arrays or objects nested too deeply"


def whole_number(text: str) -> int:
    """json's parse_int: a whole number, or a ValueError in words for one too long to read."""
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {digits:,} digits; at most {MAX_NUMBER_DIGITS:,} are read")
    return int(text)


def loads(text: str | bytes, **options: Any) -> Any:
    """json.loads, raising only ValueError (options as json.loads takes them; parse_int
    defaults to whole_number)."""
    options.setdefault("parse_int", whole_number)
    try:
        return json.loads(text, **options)
    except RecursionError:
        # The parser's own frames are gone by now: the stack is back to this depth.
        raise ValueError(NESTED_TOO_DEEPLY) from None


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, with every body it cannot read a ParseError (400 `parse_error`)."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = get_encoding(parser_context or {})
        try:
            text = codecs.getreader(encoding)(stream).read()
            return loads(text, parse_constant=strict_constant if self.strict else None)
        except ValueError as exc:  # UnicodeDecodeError too, as in DRF's own
            raise ParseError(f"JSON parse error - {exc}") from None
