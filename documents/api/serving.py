"""Which version a read of a document's output serves (`?version=N`, by default the one
search serves), and the refusals that say why one cannot be: the content, the chunks and
the page images answer alike."""

from collections.abc import Iterator
from contextlib import contextmanager

from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from config.http.api_errors import Refused
from documents import content as contents
from documents.models import Document
from jobs.models import Job


def asked(request: Request) -> int | None:
    """The `version` query parameter: None when absent (the latest)."""
    raw = request.query_params.get("version")
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValidationError({"version": "A version number: 1, 2, ..."}) from None


def no_such_version(document: Document, number: object) -> Refused:
    return Refused(
        status_code=404,
        code="version_not_found",
        detail=f"This document has versions 1 to {document.version}; there is no version {number}.",
    )


def file_missing() -> Refused:
    """404 `file_missing`: the version's file is no longer where its job stored it."""
    return Refused(
        status_code=404,
        code="file_missing",
        detail="The file of this version is no longer stored.",
    )


def served(document: Document, request: Request) -> tuple[int, Job]:
    """The version asked for (or the ready one) and the job that read it; else the refusal:
    `version_not_found` 404, `not_ready` 409, `version_pruned` 410."""
    number = _existing(document, request)
    with _refusals():
        return contents.served(document, number)


def content(document: Document, request: Request) -> contents.Content:
    """As `served`, for the content, which also needs the version's structure
    (`no_structure` 409 without it)."""
    number = _existing(document, request)
    with _refusals():
        return contents.content_of(document, number)


def _existing(document: Document, request: Request) -> int | None:
    number = asked(request)
    if number is not None and not 1 <= number <= document.version:
        raise no_such_version(document, number)
    return number


@contextmanager
def _refusals() -> Iterator[None]:
    """The service's reasons as the API's refusals."""
    try:
        yield
    except contents.NotReady as exc:
        raise Refused(
            status_code=409,
            code="not_ready",
            detail=f"Version {exc.args[0]} is not ready yet: its content, chunks and "
            "pages can be read once its job succeeds (its status_url says when).",
        ) from exc
    except contents.Replaced as exc:
        old, ready = exc.args
        raise Refused(
            status_code=410,
            code="version_pruned",
            detail=f"Version {old}'s content was removed when version {ready} became "
            f"ready; its file can still be downloaded (file?version={old}).",
        ) from exc
    except contents.NoStructure as exc:
        raise Refused(
            status_code=409,
            code="no_structure",
            detail=f"Version {exc.args[0]} was read before documents kept their "
            "structure. An operator gives it one with manage.py reprocess extraction.",
        ) from exc
