"""OpenAPI descriptions of the documents API: responses, errors and examples.

Kept apart from the views so each view still reads in one screen.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema

from documents import labels
from documents.acceptance import NOT_A_PDF
from documents.api.serializers import (
    DocumentDetailOut,
    DocumentOut,
    DocumentPatchIn,
    RefusalOut,
    UploadIn,
    UploadOut,
    UploadResultOut,
    VersionIn,
)

# Uploads and direct uploads take it alike (documents.api.views.answered_once).
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="Any unique string (≤ 255 characters) per logical request.",
)

# The reads of a version's output (content, chunks, page images) take it alike.
SERVED_VERSION = OpenApiParameter(
    "version",
    OpenApiTypes.INT,
    description="Which version (1, 2, ...); the one search serves when left out.",
)


def if_none_match(what: str) -> OpenApiParameter:
    return OpenApiParameter(
        "If-None-Match",
        OpenApiTypes.STR,
        location=OpenApiParameter.HEADER,
        description=f"The ETag of an earlier answer: 304 when the {what} is the same.",
    )


_DOC = "3f0c2a5e-8a41-4c55-a1c9-0d6f5b1e7a10"
_JOB = "9b1e4c77-2d3a-4f0e-8c51-6a7d2e9f0b34"

ACCEPTED = OpenApiExample(
    "Two files, one refused",
    status_codes=["202"],
    response_only=True,
    value={
        "results": [
            {
                "filename": "q3-report.pdf",
                "document_id": _DOC,
                "job_id": _JOB,
                "status": "queued",
                "status_url": f"https://ingest.example.com/api/jobs/{_JOB}/",
            },
            {
                "filename": "photo.png",
                "status": "rejected",
                "error": {"code": NOT_A_PDF.code, "detail": NOT_A_PDF.detail},
            },
        ]
    },
)


def _refusal(name: str, status: str, code: str, detail: str) -> OpenApiExample:
    return OpenApiExample(
        name, status_codes=[status], response_only=True, value={"code": code, "detail": detail}
    )


BUSY = _refusal(
    "Backlog full",
    "503",
    "backlog_full",
    "The service is busy: 5012 documents are waiting or in processing. Try again in 4 minutes.",
)
TOO_MANY = _refusal(
    "Too many documents in flight",
    "429",
    "too_many_in_flight",
    "You have 1000 documents waiting or in processing (the limit is 1000). Try again in 2 minutes.",
)
BAD_WEBHOOK_URL = _refusal(
    "A webhook_url that may not be used",
    "400",
    "invalid_webhook_url",
    "A webhook URL must start with http:// or https://.",
)
NOT_RETRYABLE = _refusal(
    "Not failed",
    "409",
    "not_retryable",
    "Only a failed document can be retried; this one is processing.",
)

FILE_FAILURE = _refusal(
    "Failed because of the file",
    "409",
    "not_retryable",
    "It failed because of the file itself (encrypted); retrying the same file would fail "
    "the same way. Upload a corrected copy as a new version instead.",
)

_RETRY_AFTER = "Seconds to wait, from the measured rate at which jobs finish (Retry-After header)."

upload = extend_schema(
    summary="Upload one or more PDFs",
    description=(
        "Repeat the multipart field `file` for several files. Each file gets its own result: "
        "accepted files a document, a queued job and a `status_url` to follow; refused files "
        "an `error`. One bad file never sinks the others. Send `Idempotency-Key` to make a "
        "retry of the same request safe for 24 h. Identical bytes return the existing "
        "document with `duplicate: true` unless `?reprocess=true`. An optional form field "
        "`webhook_url` hears how each accepted file's job ends (a signed POST); a URL that "
        "is not http(s) on a public address refuses the whole request before anything is "
        "stored (400 `invalid_webhook_url`). `tags` (repeated) and `metadata` (a JSON object "
        "in one field) label every new document of the request; the list and the search "
        "filter on them."
    ),
    request={"multipart/form-data": UploadIn},
    parameters=[
        IDEMPOTENCY_KEY,
        OpenApiParameter(
            "reprocess", OpenApiTypes.BOOL, description="Process identical bytes again."
        ),
    ],
    responses={
        202: OpenApiResponse(
            UploadOut, "At least one file was accepted (Location: the first job)."
        ),
        400: OpenApiResponse(
            RefusalOut,
            "Nothing accepted: empty files, no file, a `file` field holding text instead of a "
            "file part (`file_not_attached`), too many files, a `webhook_url` that may "
            "not be used (`invalid_webhook_url`), or bad `tags` or `metadata` (`invalid`, "
            "with `fields` saying what is wrong).",
        ),
        413: OpenApiResponse(
            RefusalOut, "Nothing accepted: a file (or the request) is over the size limit."
        ),
        415: OpenApiResponse(RefusalOut, "Nothing accepted: not a PDF."),
        422: OpenApiResponse(RefusalOut, "The Idempotency-Key was used for a different request."),
        429: OpenApiResponse(
            RefusalOut, f"Too many documents in flight for this user, or throttled. {_RETRY_AFTER}"
        ),
        503: OpenApiResponse(RefusalOut, f"The service's backlog is full. {_RETRY_AFTER}"),
    },
    examples=[ACCEPTED, BAD_WEBHOOK_URL, BUSY, TOO_MANY],
)

# The filters of the list and the search (documents.labels). OpenAPI has no name pattern
# for a parameter, so `metadata.<key>` is told here and shown with one example key.
FILTERS = [
    OpenApiParameter(
        "tag",
        OpenApiTypes.STR,
        many=True,
        explode=True,
        description="Only documents with this tag; repeat it (`tag=papers&tag=2024`) for "
        "documents with every one. Tags match exactly, case and all.",
    ),
    OpenApiParameter(
        "metadata.<key>",
        OpenApiTypes.STR,
        description="Only documents whose metadata holds this value under `<key>`, e.g. "
        '`metadata.year=2024` (which matches the number 2024 and the string "2024") or '
        "`metadata.client=acme`. Repeat with other keys: every one must match.",
    ),
]
FILTERS_INVALID = (
    "`invalid` with `fields` naming a bad filter: a `tag` that is empty or over "
    f"{labels.MAX_TAG_CHARS} characters, or a `metadata.` parameter with no key."
)

listing = extend_schema(
    summary="List your documents, newest first",
    parameters=[
        *FILTERS,
        OpenApiParameter(
            "status",
            OpenApiTypes.STR,
            enum=["queued", "processing", "succeeded", "failed", "cancelled"],
            description="Only documents whose current job has this status.",
        ),
    ],
    responses={
        200: DocumentOut(many=True),
        400: OpenApiResponse(
            RefusalOut, f"A `status` that is no job status (`invalid`), or {FILTERS_INVALID}"
        ),
        404: OpenApiResponse(RefusalOut, "A `cursor` this list did not give (`not_found`)."),
    },
)

detail = extend_schema(
    summary="A document: its current job, version, pages and chunks",
    responses={200: DocumentDetailOut, 404: RefusalOut},
)

relabel = extend_schema(
    summary="Change a document's tags or metadata",
    description=(
        "Each field sent replaces the stored one whole (`[]` and `{}` clear them); a field "
        "left out stays as it is. Nothing else of a document can be changed here."
    ),
    request=DocumentPatchIn,
    responses={
        200: DocumentOut,
        400: OpenApiResponse(
            RefusalOut,
            "`invalid`, with `fields` saying what is wrong: over "
            f"{labels.MAX_TAGS} tags, a tag that is empty or over {labels.MAX_TAG_CHARS} "
            "characters, metadata that is not a flat object of strings, numbers and "
            f"booleans or is over {labels.MAX_METADATA_BYTES // 1024} KiB, or another field.",
        ),
        404: RefusalOut,
    },
)

delete = extend_schema(
    summary="Delete a document, its file, chunks and jobs",
    description="A job in flight is abandoned: its worker's late writes change nothing.",
    responses={204: None, 404: RefusalOut},
)

retry = extend_schema(
    summary="Give a failed document a fresh attempt",
    description=(
        "A new queued job for a failed document; the failed one is kept. A failure caused "
        "by the file itself is not retried (409 `not_retryable`): `not_a_pdf`, `encrypted` "
        "and `corrupt` never, since the same bytes fail the same way (upload a new version "
        "instead); `no_text` only while OCR is on (`INGEST_OCR` is not `off`: the retry "
        "reads the scanned pages); and `too_many_pages` only once `INGEST_MAX_PAGES` is at "
        "least the file's page count."
    ),
    request=None,
    responses={
        202: OpenApiResponse(UploadResultOut, "A new job was queued (Location: the job)."),
        429: OpenApiResponse(
            RefusalOut, f"Too many documents in flight for this user, or throttled. {_RETRY_AFTER}"
        ),
        503: OpenApiResponse(RefusalOut, f"The service's backlog is full. {_RETRY_AFTER}"),
        404: RefusalOut,
        409: OpenApiResponse(
            RefusalOut,
            "The document's current job has not failed, or failed because of the file itself.",
        ),
    },
    examples=[NOT_RETRYABLE, FILE_FAILURE],
)

versions = extend_schema(
    summary="Upload a new version of a document",
    description=(
        "The file becomes version n + 1 and gets its own job. Search keeps serving the ready "
        "version until the new one is processed; if an older version finishes after a newer "
        "one, its result is discarded. The optional form field `webhook_url` hears how the "
        "new version's job ends, as for an upload. Bytes that are already the current file "
        "of this document or another of the owner's make no new version: the answer is "
        "that document with `duplicate: true`, as for an upload."
    ),
    request={"multipart/form-data": VersionIn},
    responses={
        202: OpenApiResponse(UploadResultOut, "The new version was accepted (Location: its job)."),
        400: OpenApiResponse(
            RefusalOut,
            "Not one file, an empty file, an `invalid_webhook_url`, or `tags` or `metadata` "
            "sent (`invalid`: a new version keeps the document's; change them with PATCH).",
        ),
        404: RefusalOut,
        413: RefusalOut,
        415: RefusalOut,
        429: RefusalOut,
        503: RefusalOut,
    },
)

download = extend_schema(
    summary="Download the original file of a version",
    description=(
        "The PDF exactly as it was uploaded, streamed, as an attachment named as it was "
        "uploaded (Content-Disposition). Any version the document has: `version` 1 to its "
        "current `version`; the latest without it. A `Range: bytes=first-last` header "
        "(or `bytes=first-`, `bytes=-count`) gets those bytes alone, 206 with "
        "`Content-Range`, so a viewer can read a page and an interrupted download can go "
        "on; several ranges in one header get the whole file. With "
        "`INGEST_S3_DOWNLOAD_REDIRECT_SECONDS` set and the files on S3, the answer is a "
        "302 to a signed URL of the bucket that serves the same bytes (ranges included) "
        "until it expires."
    ),
    parameters=[
        OpenApiParameter(
            "version",
            OpenApiTypes.INT,
            description="Which version (1, 2, ...); the latest when left out.",
        ),
        OpenApiParameter(
            "Range",
            OpenApiTypes.STR,
            location=OpenApiParameter.HEADER,
            description="One byte range, e.g. `bytes=0-1023`; the whole file without it.",
        ),
    ],
    responses={
        (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, "The file."),
        (206, "application/pdf"): OpenApiResponse(
            OpenApiTypes.BINARY, "The bytes the Range asked for (`Content-Range` says which)."
        ),
        302: OpenApiResponse(
            description="On S3 with redirects on: `Location` is a signed URL of the file."
        ),
        400: OpenApiResponse(
            RefusalOut,
            "A `version` that is not a number (`invalid`), or a Range holding a number of "
            "more than 18 digits (`invalid_range`).",
        ),
        404: OpenApiResponse(
            RefusalOut,
            "No such document of yours (`not_found`), no such version (`version_not_found`), "
            "or its file is no longer stored (`file_missing`).",
        ),
        410: OpenApiResponse(
            RefusalOut,
            "A version replaced more than INGEST_RETAIN_DAYS days ago, removed by retention "
            "(`version_pruned`).",
        ),
        416: OpenApiResponse(
            RefusalOut,
            "The Range starts past the file's end (`range_not_satisfiable`; "
            "`Content-Range: bytes */<size>`).",
        ),
    },
)


content = extend_schema(
    summary="A version's content: Markdown, the document model as JSON, or text",
    description=(
        "The text of the version search serves (or `version`), as read with its structure "
        "(docs: A document's structure), streamed. `format=markdown` (the default): "
        "headings as `#`, tables as Markdown (HTML where a cell spans rows or columns), "
        "captions in italics, a `<!-- page N -->` line where each page starts; page "
        "furniture (running headers and footers, page numbers, line numbers, margin marks) "
        "left out. `format=json`: the document model, `pages` (number, width and height in "
        "points as shown, source, confidence) and `blocks` in reading order (index, kind, "
        "text, page, box `[x0, y0, x1, y1]` in points from the shown page's top-left "
        "corner, level, table cells, parts on other pages, lines with their offsets, "
        "source, confidence), furniture included with its kind. `format=text`: the text "
        "alone, tables as tab-separated rows. The `ETag` names the reading: send it as "
        "`If-None-Match` to get 304 while it has not changed."
    ),
    parameters=[
        OpenApiParameter(
            "format",
            OpenApiTypes.STR,
            enum=["markdown", "json", "text"],
            description="markdown (default), json or text.",
        ),
        SERVED_VERSION,
        if_none_match("content"),
    ],
    responses={
        (200, "text/markdown"): OpenApiResponse(OpenApiTypes.STR, "The content as Markdown."),
        (200, "application/json"): OpenApiResponse(
            OpenApiTypes.OBJECT, "The document model: pages and blocks."
        ),
        (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, "The text alone."),
        304: OpenApiResponse(description="Not modified since the ETag sent."),
        400: OpenApiResponse(RefusalOut, "A `format` or `version` that is not one (`invalid`)."),
        404: OpenApiResponse(
            RefusalOut,
            "No such document of yours (`not_found`), or no such version (`version_not_found`).",
        ),
        409: OpenApiResponse(
            RefusalOut,
            "No version ready yet, or the one asked for is still processing (`not_ready`); "
            "or read before documents kept their structure (`no_structure`).",
        ),
        410: OpenApiResponse(
            RefusalOut,
            "A version replaced by a newer one: its content went with it (`version_pruned`); "
            "its file can still be downloaded.",
        ),
    },
)


page_image = extend_schema(
    summary="A page of a version as a PNG image",
    description=(
        "Page `n` (from 1) of the version search serves (or `version`), drawn by PDFium as "
        "it is shown (its crop box, its rotation), `width` pixels wide (100 to 2000; 1000 "
        "when left out) and as tall as the page's shape makes it. A block's or a chunk's "
        "box in points, from the page's top-left corner, is at `x * width / page width` "
        "pixels (the pages' sizes in points are in the content's JSON). Drawn once, then "
        "kept; the `ETag` names the reading that made the version: send it as "
        "`If-None-Match` to get 304. `Cache-Control: private`, for 5 minutes (a day with "
        "`version`). The versions served, and refused, are the content endpoint's."
    ),
    parameters=[
        OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH),
        OpenApiParameter(
            "n", OpenApiTypes.INT, OpenApiParameter.PATH, description="The page, from 1."
        ),
        OpenApiParameter(
            "width",
            OpenApiTypes.INT,
            description="The image's width in pixels, 100 to 2000; 1000 when left out.",
        ),
        SERVED_VERSION,
        if_none_match("image"),
    ],
    responses={
        (200, "image/png"): OpenApiResponse(OpenApiTypes.BINARY, "The page as a PNG."),
        304: OpenApiResponse(description="Not modified since the ETag sent."),
        400: OpenApiResponse(RefusalOut, "A `width` or `version` that is not one (`invalid`)."),
        404: OpenApiResponse(
            RefusalOut,
            "No such document of yours (`not_found`), no such version "
            "(`version_not_found`), no such page (`page_not_found`, saying how many there "
            "are), or the version's file is no longer stored (`file_missing`).",
        ),
        409: OpenApiResponse(
            RefusalOut,
            "No version ready yet, or the one asked for is still processing (`not_ready`).",
        ),
        410: OpenApiResponse(RefusalOut, "A version replaced by a newer one (`version_pruned`)."),
        422: OpenApiResponse(
            RefusalOut,
            "The page cannot be drawn within the service's time and memory limits, or "
            "PDFium cannot open it (`render_failed`).",
        ),
        503: OpenApiResponse(
            RefusalOut,
            "Drawing must wait: other pages are being drawn (`render_busy`), the machine "
            "is too busy to draw in time (`render_unavailable`), or the file storage did "
            "not answer (`storage_unavailable`); `Retry-After` says when to try again.",
        ),
    },
)
