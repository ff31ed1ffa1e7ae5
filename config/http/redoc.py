"""/api/redoc/ with nothing loaded from another host.

drf-spectacular-sidecar ships ReDoc's bundle, but the bundle itself shows a "Redocly"
badge whose image comes from Redocly's CDN (there is no option to hide it), and
drf-spectacular's page template links Google Fonts. The template is overridden in
templates/drf_spectacular/redoc.html; the bundle is served from here with the badge's
image address replaced by an empty data URL, which fails at once, so ReDoc drops the image
(its onError handler) and keeps the text link.

The bundle also adds <style> elements as it loads, which the Content-Security-Policy
(config/http/csp.py) applies only with the page's nonce. They take webpack's nonce, which the
bundle leaves unset until ReDoc is started; served from here, it takes the nonce of its
own <script> tag instead, from the first <style> on.
"""

import functools

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.gzip import gzip_page
from drf_spectacular.views import SpectacularRedocView

SIDECAR_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
BADGE_IMAGE = b'"https://cdn.redoc.ly/redoc/logo-mini.svg"'
NO_IMAGE = b'"data:,"'
WEBPACK_NONCE_UNSET = b"r.nc=void 0"
WEBPACK_NONCE_OF_SCRIPT = b"r.nc=document.currentScript&&document.currentScript.nonce||void 0"


@functools.cache
def local_bundle() -> bytes:
    """The sidecar's ReDoc bundle with the one outside address it loads removed, and its
    styles given the nonce of its <script> tag."""
    path = finders.find(SIDECAR_BUNDLE)
    if path is None:
        raise FileNotFoundError(f"{SIDECAR_BUNDLE} (drf-spectacular-sidecar) is not installed")
    with open(path, "rb") as bundle:
        original = bundle.read()
    return original.replace(BADGE_IMAGE, NO_IMAGE).replace(
        WEBPACK_NONCE_UNSET, WEBPACK_NONCE_OF_SCRIPT
    )


@gzip_page
@cache_control(public=True, max_age=24 * 3600)
def bundle(request: HttpRequest) -> HttpResponse:
    return HttpResponse(local_bundle(), content_type="text/javascript; charset=utf-8")


class RedocView(SpectacularRedocView):
    """drf-spectacular's ReDoc page, on the bundle above."""

    @staticmethod
    def _redoc_standalone() -> str:
        return reverse("api-redoc-bundle")
