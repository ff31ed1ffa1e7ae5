"""/accounts/: Django's own sign-in, sign-out and password views, with password reset off
while no mail server is set (INGEST_EMAIL_HOST): a reset link that cannot be mailed helps
nobody, and an open reset form lets anyone make the service send mail to any address.
And /accounts/tokens/, where a signed-in user manages their API tokens (views.py)."""

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import urls as auth_urls
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path

from config.accounts import views

RESET_VIEWS = {
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
}


def mail_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    def guarded(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if not settings.INGEST_EMAIL_HOST:
            raise Http404("Password reset is off: this service has no mail server set.")
        return view(request, *args, **kwargs)

    return guarded


def _pattern(found: URLPattern | URLResolver) -> URLPattern | URLResolver:
    if not isinstance(found, URLPattern) or found.name not in RESET_VIEWS:
        return found
    return path(str(found.pattern), mail_required(found.callback), name=found.name)


urlpatterns = [
    *(_pattern(found) for found in auth_urls.urlpatterns),
    path("tokens/", views.token_list, name="api-tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke, name="api-token-revoke"),
]
