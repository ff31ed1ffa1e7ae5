"""JSON answers for the errors Django, not DRF, would give under /api/ as HTML pages.

A path under /api/ that no route matches (a typo, an id that is not a UUID, which the
`uuid` converters refuse before any view runs, or a missing final slash) reaches
`NoSuchEndpoint`, the last route; 400s raised while Django reads a request and unhandled
500s reach `bad_request` and `server_error`, the project's handler400 and handler500 (and
a 404 or 403 a view outside DRF raises, `not_found` and `permission_denied`). Pages
outside /api/ get Django's views, which render the site's templates/404.html and the like.
"""

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve
from django.views import defaults
from rest_framework.exceptions import APIException, NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

API_PREFIX = "/api/"


class SlashMissing(APIException):
    status_code = 308  # the client repeats the same method and body at the new address
    default_code = "slash_missing"

    def __init__(self, location: str) -> None:
        super().__init__(
            f"This endpoint is {location}, with the final slash: add it, or follow the "
            "redirect (curl -L)."
        )
        self.location = location


class NoSuchEndpoint(APIView):
    """Every method on an unmatched /api/ path: 404 {"code": "not_found"}, for anyone; or,
    when only the final slash is missing, 308 to the endpoint with a JSON body that says so
    (Django's own redirect is an empty 301 that turns a POST into a GET, and that curl
    without -L shows as nothing at all)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    schema = None  # not an endpoint: left out of the OpenAPI schema

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        if not request.path_info.endswith("/") and _is_endpoint(request.path_info + "/"):
            query = request.META.get("QUERY_STRING", "")
            raise SlashMissing(request.path + "/" + (f"?{query}" if query else ""))
        raise NotFound(
            f"No API endpoint at {request.path} (ids in paths are UUIDs, as in the "
            "status_url of an upload). The endpoints are listed at /api/docs/."
        )

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        if isinstance(exc, SlashMissing):
            response["Location"] = exc.location
        return response


def _is_endpoint(path: str) -> bool:
    try:
        return resolve(path).url_name != "api-not-found"
    except Resolver404:
        return False


def _error(code: str, detail: str, status: int) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail}, status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not request.path_info.startswith(API_PREFIX):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        # Form fields, unlike files, are held in memory: this is nearly always a file
        # sent as text (curl -F 'file=<report.pdf' instead of -F file=@report.pdf).
        return _error(
            "fields_too_large",
            "The request's form fields (not its files) are larger than allowed: send each "
            "file as a file part (curl -F file=@report.pdf).",
            413,
        )
    return _error("bad_request", "The request could not be read.", 400)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    # A view outside DRF that raised Http404 on an /api/ path (DRF's own answer theirs).
    if not request.path_info.startswith(API_PREFIX):
        return defaults.page_not_found(request, exception)
    return _error("not_found", "Nothing here: the path is no API endpoint.", 404)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not request.path_info.startswith(API_PREFIX):
        return defaults.permission_denied(request, exception)
    return _error("permission_denied", str(exception) or "Not allowed.", 403)


def server_error(request: HttpRequest) -> HttpResponse:
    if not request.path_info.startswith(API_PREFIX):
        return defaults.server_error(request)
    return _error("server_error", "Something failed on our side; it has been logged.", 500)
