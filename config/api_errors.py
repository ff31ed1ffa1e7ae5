"""One shape for every API error: {"code", "detail"} (+ "fields" for invalid input)."""

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


def handle(exc: Exception, context: dict) -> Response | None:
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, Refused):
        response.data = {"code": exc.code, "detail": str(exc.detail)}
        if exc.retry_after is not None:
            response["Retry-After"] = str(exc.retry_after)
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
