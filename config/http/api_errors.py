"""One shape for every API error: {"code", "detail"} (+ "fields" for invalid input)."""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler


class Refused(exceptions.APIException):
    """A deliberate refusal with a stable code, and a Retry-After when there is one."""

    def __init__(
        self, *, status_code: int, code: str, detail: str, retry_after: int | None = None
    ) -> None:
        super().__init__(detail=detail, code=code)
        self.status_code = status_code
        self.code = code
        self.retry_after = retry_after
        self.content_range: str | None = None  # a 416's `bytes */<size>`


NOT_FOUND = "Nothing here: the id is unknown or not yours, or the path is no API endpoint."
NOT_AUTHENTICATED = (
    "No credentials: send the header 'Authorization: Token <key>' or 'Authorization: Bearer "
    "<key>' (a key from the page's API tokens, /accounts/tokens/, or from `manage.py "
    "create_token <user>`), or sign in at / for a session."
)
MULTIPART = "multipart/form-data"


def _upload_hint(media_type: str) -> str:
    return (
        f"This endpoint takes {MULTIPART}, not a body of type {media_type!r}: send each file "
        "as a form part named file, as `curl -F file=@report.pdf` does. (`curl --data-binary "
        "@report.pdf` sends the file's bytes as the whole body, which is not read.)"
    )


def _as_api_exception(exc: Exception, request: object) -> Exception:
    # DRF answers Django's own 404 and 403 but without a code: give them DRF's (and one
    # wording that does not say whether an id exists for someone else).
    if isinstance(exc, Http404):
        return exceptions.NotFound(NOT_FOUND)
    if isinstance(exc, PermissionDenied):
        return exceptions.PermissionDenied(*exc.args)
    if isinstance(exc, exceptions.NotAuthenticated):
        exc.detail = exceptions.ErrorDetail(NOT_AUTHENTICATED, code=exc.default_code)
    if isinstance(exc, exceptions.UnsupportedMediaType) and _takes_only_multipart(request):
        # Nearly always `curl --data-binary @report.pdf` (a file as the whole body).
        media_type = getattr(request, "content_type", "") or "none"
        exc.detail = exceptions.ErrorDetail(_upload_hint(media_type), code=exc.default_code)
    return exc


def _takes_only_multipart(request: object) -> bool:
    parsers = getattr(request, "parsers", None) or []
    return bool(parsers) and all(parser.media_type == MULTIPART for parser in parsers)


def handle(exc: Exception, context: dict) -> Response | None:
    exc = _as_api_exception(exc, context.get("request"))
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, Refused):
        response.data = {"code": exc.code, "detail": str(exc.detail)}
        if exc.retry_after is not None:
            response["Retry-After"] = str(exc.retry_after)
        if exc.content_range is not None:
            response["Content-Range"] = exc.content_range
    elif isinstance(exc, exceptions.ValidationError):
        response.data = {
            "code": "invalid",
            "detail": "The request is not valid.",
            "fields": exc.detail,
        }
    elif isinstance(exc, exceptions.APIException):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else exc.default_code
        response.data = {"code": code, "detail": str(exc.detail)}
    return response


# ------------------------------------------------------------------ the schema's errors

ERROR_SCHEMA = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "detail": {"type": "string"}},
    "required": ["code", "detail"],
}
# Answers any operation may give, whatever its own decorator declares: (status, when).
_SIGNED_IN = (
    "401",
    "No credentials, or a token that is unknown, revoked or expired "
    "(`not_authenticated`, `authentication_failed`).",
)
_UNSAFE = (
    "403",
    "A session without its CSRF token, or an account not allowed to do this (`permission_denied`).",
)
_UNSAFE_METHODS = {"post", "put", "patch", "delete"}
# config.http.middleware answers any request this way while the database or the object storage
# cannot be reached.
_NO_DATABASE = (
    "503",
    "The database or the file storage is not answering, for a moment "
    "(`database_unavailable`, `storage_unavailable`): try again after Retry-After seconds.",
)


def declare_errors(result: dict, generator: object, request: object, public: bool) -> dict:
    """drf-spectacular postprocessing hook: every operation that needs a user declares 401,
    every one that changes something 403, and every one 503 (no database or storage), each as
    {"code", "detail"} unless the operation declares its own, so a client (and the fuzz
    test's status and schema checks) knows every answer the API can give."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("Error", ERROR_SCHEMA)
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            wanted = [_SIGNED_IN] if operation.get("security") else []
            if method in _UNSAFE_METHODS:
                wanted.append(_UNSAFE)
            wanted.append(_NO_DATABASE)
            responses = operation.setdefault("responses", {})
            for status, description in wanted:
                responses.setdefault(
                    status,
                    {
                        "description": description,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                        },
                    },
                )
    return result
