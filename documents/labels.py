"""A document's tags and metadata: what they may hold, and the filters that find them.

Tags are a list of strings, at most MAX_TAGS, each 1 to MAX_TAG_CHARS characters; the
metadata a flat JSON object of string, number and boolean values (a whole number of at
most MAX_NUMBER_DIGITS digits), at most MAX_METADATA_BYTES as compact UTF-8 JSON. Both
are the owner's to set (on upload, or with `PATCH /api/documents/{id}/`) and are matched
exactly, case and all.

Filters, on the document list and the search alike:

- `tag=` repeated: the document has every one (`tags @> [...]`, the GIN index on tags);
- `metadata.<key>=<value>`: the document's metadata holds `value` under `key`. A query
  string carries text only, so `year=2024` matches the number 2024 and the string "2024",
  and `draft=true` the boolean and the string (`metadata @> {...}` for each reading, ORed:
  the GIN index on metadata serves each).

Bad input raises `ValidationError` with the field named, which the API answers as 400
`invalid` with `fields`.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Q
from rest_framework.exceptions import ValidationError

from config.http import json_bodies
from search.retrieval.scope import Filters

MAX_TAGS = 50
MAX_TAG_CHARS = 64
MAX_METADATA_BYTES = 8 * 1024
MAX_KEY_CHARS = 64
METADATA_PREFIX = "metadata."
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
# What the page's box keeps typed: true, false, and a number as people write one.
_PLAIN = re.compile(r"true|false|-?(0|[1-9][0-9]*)(\.[0-9]+)?")
MAX_NUMBER_DIGITS = json_bodies.MAX_NUMBER_DIGITS


class _LongNumber(str):
    """A whole number in JSON longer than MAX_NUMBER_DIGITS, kept as its digits: no number
    to store, but clean_metadata can say which value it was."""

    @property
    def digits(self) -> int:
        return len(self.lstrip("-"))


def _whole_number(text: str) -> int | _LongNumber:
    return _LongNumber(text) if len(text.lstrip("-")) > MAX_NUMBER_DIGITS else int(text)


def _loads(text: str) -> Any:
    """JSON a client sent (only ValueError: config.http.json_bodies), with a whole number too long
    to read as a _LongNumber, so that clean_metadata can name its key."""
    return json_bodies.loads(text, parse_int=_whole_number)


def _text_problem(text: str) -> str | None:
    """Why `text` cannot be stored as it is (Postgres refuses NUL; control characters
    would show as nothing), or None."""
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        return "holds a control character"
    if any(unicodedata.category(ch) == "Cs" for ch in text):
        return "holds a lone surrogate"
    return None


def clean_tag(raw: object, field: str = "tags") -> str:
    """One tag: a string of 1 to MAX_TAG_CHARS characters once spaces are trimmed (NFC)."""
    if not isinstance(raw, str):
        raise ValidationError({field: [f"A tag is a string, not {_kind(raw)}."]})
    tag = unicodedata.normalize("NFC", raw).strip()
    if not tag:
        raise ValidationError({field: ["A tag cannot be empty."]})
    if len(tag) > MAX_TAG_CHARS:
        too_long = f"A tag has at most {MAX_TAG_CHARS} characters; {tag[:20]!r}… has {len(tag)}."
        raise ValidationError({field: [too_long]})
    if problem := _text_problem(tag):
        raise ValidationError({field: [f"The tag {tag!r} {problem}."]})
    return tag


def clean_tags(raw: object) -> list[str]:
    """The tags to store: each cleaned, repeats dropped, in the order given."""
    if not isinstance(raw, list):
        raise ValidationError({"tags": [f"A list of strings, not {_kind(raw)}."]})
    tags = list(dict.fromkeys(clean_tag(item) for item in raw))
    if len(tags) > MAX_TAGS:
        raise ValidationError(
            {"tags": [f"At most {MAX_TAGS} tags on a document; {len(tags)} were sent."]}
        )
    return tags


def clean_key(raw: object, field: str = "metadata") -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise ValidationError({field: ["A metadata key is a non-empty string."]})
    if len(raw) > MAX_KEY_CHARS:
        too_long = (
            f"A metadata key has at most {MAX_KEY_CHARS} characters; {raw[:20]!r}… has {len(raw)}."
        )
        raise ValidationError({field: [too_long]})
    if problem := _text_problem(raw):
        raise ValidationError({field: [f"The metadata key {raw!r} {problem}."]})
    return raw


def metadata_bytes(metadata: Mapping) -> int:
    """The size MAX_METADATA_BYTES bounds: compact JSON, as UTF-8."""
    return len(json.dumps(metadata, ensure_ascii=False, separators=(",", ":")).encode())


def clean_metadata(raw: object) -> dict[str, str | int | float | bool]:
    """The metadata to store: a flat object of strings, numbers and booleans, at most
    MAX_METADATA_BYTES of compact JSON."""
    if not isinstance(raw, Mapping):
        raise ValidationError({"metadata": [f"A JSON object, not {_kind(raw)}."]})
    for key, value in raw.items():
        clean_key(key)
        if isinstance(value, _LongNumber):
            raise ValidationError(
                {
                    "metadata": [
                        f"The value of {key!r} is a number of {value.digits:,} digits; a number "
                        f"has at most {MAX_NUMBER_DIGITS:,}."
                    ]
                }
            )
        if isinstance(value, str):
            if problem := _text_problem(value):
                raise ValidationError({"metadata": [f"The value of {key!r} {problem}."]})
        elif isinstance(value, float) and not math.isfinite(value):
            raise ValidationError({"metadata": [f"The value of {key!r} is not a finite number."]})
        elif not isinstance(value, bool | int | float):
            raise ValidationError(
                {
                    "metadata": [
                        f"The value of {key!r} is {_kind(value)}: metadata is flat, each value "
                        "a string, a number or a boolean."
                    ]
                }
            )
    size = metadata_bytes(raw)
    if size > MAX_METADATA_BYTES:
        raise ValidationError(
            {"metadata": [f"At most {MAX_METADATA_BYTES:,} bytes of JSON; this has {size:,}."]}
        )
    return dict(raw)


def metadata_from_form(values: list[str]) -> dict[str, Any]:
    """A multipart upload's `metadata`: one field holding a JSON object ({}: none sent)."""
    if not values:
        return {}
    if len(values) > 1:
        raise ValidationError({"metadata": ["Send one metadata field, holding a JSON object."]})
    try:
        parsed = _loads(values[0])
    except ValueError as exc:
        raise ValidationError({"metadata": [f"Not valid JSON: {exc}."]}) from None
    return clean_metadata(parsed)


def metadata_from_lines(text: str) -> dict[str, str | int | float | bool]:
    """The page's metadata box: a `key: value` a line (the first colon splits), `true`,
    `false` and plain numbers typed as such, anything else a string."""
    parsed: dict[str, Any] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        if not colon or not key.strip():
            raise ValidationError(
                {"metadata": [f"The line {line.strip()!r} has no key: write it as key: value."]}
            )
        parsed[key.strip()] = _typed(value.strip())
    return clean_metadata(parsed)


def _typed(value: str) -> str | int | float | bool:
    """A value of the page's box as stored: true, false and plain numbers as such, else the
    text. A decimal too large for a float stays text, as readings() reads it; a whole
    number too long to read stays a _LongNumber, for clean_metadata to refuse by its key."""
    if not _PLAIN.fullmatch(value):
        return value
    read = _loads(value)
    if isinstance(read, float) and not math.isfinite(read):
        return value
    return read


def shown(metadata: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Metadata as the page shows it: (key, value as typed), keys in alphabetical order
    (stored as jsonb, an object keeps no order of its own)."""
    return [
        (key, json.dumps(v) if isinstance(v, bool) else str(v))
        for key, v in sorted(metadata.items())
    ]


def as_lines(metadata: Mapping[str, Any]) -> str:
    """Metadata as the page's box holds it; metadata_from_lines reads it back."""
    return "\n".join(f"{key}: {value}" for key, value in shown(metadata))


def said(exc: ValidationError) -> str:
    """A ValidationError's messages as one sentence, for the page."""
    detail = exc.detail
    messages = detail.values() if isinstance(detail, dict) else [detail]
    return " ".join(str(m) for listed in messages for m in listed)


# ---------------------------------------------------------------------------- filters


def readings(value: str) -> list[str | int | float | bool]:
    """What a query string's `value` may stand for in stored metadata: the string, and the
    number or boolean it spells."""
    meant: list[str | int | float | bool] = [value]
    if value in ("true", "false"):
        meant.append(value == "true")
    elif _NUMBER.fullmatch(value):
        number = _loads(value)
        # No stored number is too long to read (clean_metadata refuses one): text alone.
        if isinstance(number, int) or (isinstance(number, float) and math.isfinite(number)):
            meant.append(number)
    return meant


def filters_from(params: Mapping[str, Any]) -> Filters:
    """The `tag` and `metadata.<key>` filters of a request's query parameters (a QueryDict:
    `getlist` gives each value of a repeated parameter)."""
    getlist = getattr(params, "getlist", lambda name: [params[name]])
    tags = tuple(dict.fromkeys(clean_tag(t, "tag") for t in getlist("tag")))
    conditions = [
        (clean_key(name[len(METADATA_PREFIX) :], name), tuple(readings(value)))
        for name in params
        if name.startswith(METADATA_PREFIX)
        for value in getlist(name)
    ]
    return Filters(tags=tags, metadata=tuple(conditions))


def as_q(filters: Filters, prefix: str = "") -> Q:
    """The filters as an ORM condition on documents (`prefix`: the path to a document)."""
    condition = Q()
    if filters.tags:
        condition &= Q(**{f"{prefix}tags__contains": list(filters.tags)})
    for key, values in filters.metadata:
        either = Q()
        for value in values:
            either |= Q(**{f"{prefix}metadata__contains": {key: value}})
        condition &= either
    return condition


def _kind(value: object) -> str:
    names: Iterable[tuple[type, str]] = (
        (_LongNumber, "a number"),
        (bool, "a boolean"),
        (int, "a number"),
        (float, "a number"),
        (str, "a string"),
        (list, "a list"),
        (dict, "an object"),
    )
    if value is None:
        return "null"
    return next((name for kind, name in names if isinstance(value, kind)), type(value).__name__)
