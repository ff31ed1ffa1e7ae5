"""The Content-Security-Policy (config/http/csp.py, CONTENT_SECURITY_POLICY in the settings):
every page answers with one; its nonce is on each inline script and style of the page and
changes with each answer; no page holds what the policy would refuse (an inline event
handler, a javascript: URL, a style attribute, htmx attributes that htmx would evaluate);
connect-src allows the status socket the page opens, and the bucket that direct uploads
go to. The browser sees the same in tests/browser/test_content_security_policy.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.staticfiles import finders
from django.core.files.storage import storages
from django.test import Client, override_settings
from django.urls import path

from config.http import csp, redoc
from config.urls import urlpatterns as site_urlpatterns
from tests.documents.conftest import storages_for_environment
from tests.factories import make_document

pytestmark = pytest.mark.django_db

HEADER = "Content-Security-Policy"


# A URLconf of the site's routes and one that fails, for the 500 page through the
# middleware (this module is ROOT_URLCONF in the test that asks for it).
def broken_view(request):
    raise RuntimeError("a bug")


urlpatterns = [*site_urlpatterns, path("broken/", broken_view)]
handler500 = "config.http.api_fallbacks.server_error"


def policy_of(response) -> dict[str, list[str]]:
    """The header's directives: name → sources."""
    directives = [part.split() for part in response[HEADER].split(";") if part.strip()]
    return {name: sources for name, *sources in directives}


def nonce_of(response) -> str:
    [nonce] = [s for s in policy_of(response)["script-src"] if s.startswith("'nonce-")]
    assert nonce in policy_of(response)["style-src"]
    return nonce.removeprefix("'nonce-").removesuffix("'")


class Markup(HTMLParser):
    """What in a page a strict policy runs only with the nonce, or never."""

    SCRIPT_TYPES = {"", "text/javascript", "module"}

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.script_nonces: list[str | None] = []  # of each inline script
        self.style_nonces: list[str | None] = []  # of each <style>
        self.refused: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        runs = (attributes.get("type") or "").lower() in self.SCRIPT_TYPES
        if tag == "script" and "src" not in attributes and runs:
            self.script_nonces.append(attributes.get("nonce"))
        if tag == "style":
            self.style_nonces.append(attributes.get("nonce"))
        for name, value in attrs:
            self.refused += [f"<{tag} {name}={value!r}>" for reason in refusals(name, value or "")]

    handle_startendtag = handle_starttag


def refusals(name: str, value: str) -> list[str]:
    """Why the policy would refuse this attribute: none, or one reason."""
    if name.startswith("on"):
        return ["an inline event handler"]
    if name == "style":
        return ["a style attribute"]
    if value.strip().lower().startswith("javascript:"):
        return ["a javascript: URL"]
    if name.startswith(("hx-on", "data-hx-on")):
        return ["htmx runs hx-on through Function()"]
    if name in ("hx-trigger", "data-hx-trigger") and "[" in value:
        return ["htmx runs a trigger's filter through Function()"]
    if name in ("hx-vals", "hx-headers", "hx-vars") and value.strip().startswith(
        ("js:", "javascript:")
    ):
        return ["htmx evaluates it"]
    return []


def assert_strict(response) -> Markup:
    """The answer has the policy, its nonce on every inline script and style, and nothing
    the policy refuses."""
    assert response["Content-Type"].startswith("text/html")
    nonce = nonce_of(response)
    markup = Markup(response.content.decode())
    assert markup.script_nonces == [nonce] * len(markup.script_nonces)
    assert markup.style_nonces == [nonce] * len(markup.style_nonces)
    assert markup.refused == []
    return markup


# ---------------------------------------------------------------- the pages


@pytest.fixture
def staff(db) -> User:
    user = User.objects.create_user("olivia", password="olivia-password", is_staff=True)
    for codename in ("view_job", "view_document"):
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


def signed_in(user: User, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def upload_page(alice, staff):
    make_document(alice, filename="q3-report.pdf")
    return signed_in(alice).get("/")


def document_page(alice, staff):
    document = make_document(alice, filename="q3-report.pdf")
    return signed_in(alice).get(f"/documents/{document.id}/")


def search_results(alice, staff):
    return signed_in(alice).get("/search/", {"q": "report"})


def tokens_page(alice, staff):
    return signed_in(alice).get("/accounts/tokens/")


def tokens_page_with_a_new_key(alice, staff):
    return signed_in(alice).post("/accounts/tokens/", {"name": "laptop", "expires_in_days": "30"})


def sign_in_page(alice, staff):
    return Client().get("/accounts/login/")


def admin_index(alice, staff):
    return signed_in(staff).get("/admin/")


def admin_job_list(alice, staff):
    make_document(alice, filename="q3-report.pdf")
    return signed_in(staff).get("/admin/jobs/job/")


def admin_document_list(alice, staff):
    make_document(alice, filename="q3-report.pdf")
    return signed_in(staff).get("/admin/documents/document/")


def admin_sign_in_page(alice, staff):
    return Client().get("/admin/login/")


def ops_dashboard(alice, staff):
    return signed_in(staff).get("/ops/")


def swagger_ui(alice, staff):
    return Client().get("/api/docs/")


def redoc_docs(alice, staff):
    return Client().get("/api/redoc/")


def not_found(alice, staff):
    return signed_in(alice).get("/no-such-page/")


def forbidden(alice, staff):
    return signed_in(alice).get("/ops/")


def csrf_failure(alice, staff):
    return Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "a"})


def unknown_host(alice, staff):
    return Client(HTTP_HOST="elsewhere.example").get("/")


def server_error(alice, staff):
    with override_settings(ROOT_URLCONF=__name__):
        return Client(raise_request_exception=False).get("/broken/")


# Each page: how to get it, its status, and a piece of it that says it is that page.
PAGES: dict[str, tuple[Callable, int, str]] = {
    "the upload page": (upload_page, 200, 'id="upload-form"'),
    "a document's page": (document_page, 200, 'id="facts"'),
    "the search box's results": (search_results, 200, 'data-state="no-results"'),
    "the tokens page": (tokens_page, 200, 'class="new-token"'),
    "the tokens page showing a new key": (tokens_page_with_a_new_key, 200, 'id="new-key"'),
    "the sign-in page": (sign_in_page, 200, 'name="password"'),
    "the admin's index": (admin_index, 200, 'id="ops-dashboard-module"'),
    "the admin's job list": (admin_job_list, 200, 'class="status-badge status-queued"'),
    "the admin's document list": (admin_document_list, 200, 'id="result_list"'),
    "the admin's sign-in page": (admin_sign_in_page, 200, 'id="login-form"'),
    "the ops dashboard": (ops_dashboard, 200, 'class="ops-chart"'),
    "Swagger UI": (swagger_ui, 200, 'id="swagger-ui"'),
    "ReDoc": (redoc_docs, 200, '<redoc spec-url="/api/schema/">'),
    "the 404 page": (not_found, 404, "Nothing here"),
    "the 403 page": (forbidden, 403, "Your account cannot open this page"),
    "the 403 page of a form without its CSRF token": (csrf_failure, 403, "That form had expired"),
    "the 400 page of an unknown host name": (unknown_host, 400, "does not answer to the name"),
    "the 500 page": (server_error, 500, "Something failed on our side"),
}


@pytest.mark.parametrize("page", PAGES)
def test_each_page_has_the_policy_its_nonce_on_every_inline_script_and_nothing_it_refuses(
    page, alice, staff
):
    answer, status, shows = PAGES[page]

    response = answer(alice, staff)

    assert response.status_code == status
    assert shows in response.content.decode()
    assert_strict(response)


def test_the_api_docs_pages_inline_scripts_and_styles_carry_the_nonce():
    """So the check above is not vacuous. ReDoc's bundle takes the nonce of its own tag,
    for the <style> elements it adds (config/http/redoc.py)."""
    client = Client()
    swagger = assert_strict(client.get("/api/docs/"))
    assert len(swagger.script_nonces) == len(swagger.style_nonces) == 1

    response = client.get("/api/redoc/")
    redoc_page = assert_strict(response)
    assert len(redoc_page.style_nonces) == 1
    bundle_tag = f'<script src="/api/redoc/redoc.standalone.js" nonce="{nonce_of(response)}">'
    assert bundle_tag in response.content.decode()


def test_the_redoc_bundle_served_gives_its_styles_the_nonce_of_its_tag():
    original = Path(finders.find(redoc.SIDECAR_BUNDLE)).read_bytes()

    assert original.count(redoc.WEBPACK_NONCE_UNSET) == 1, "the sidecar's bundle changed"
    assert redoc.WEBPACK_NONCE_OF_SCRIPT in redoc.local_bundle()
    assert redoc.WEBPACK_NONCE_UNSET + b";" not in redoc.local_bundle()


def test_the_tokens_page_script_carries_the_answers_nonce(alice):
    response = signed_in(alice).get("/accounts/tokens/")

    markup = assert_strict(response)
    assert markup.script_nonces == [nonce_of(response)]


def test_each_answer_has_a_nonce_of_its_own(alice):
    client = signed_in(alice)

    nonces = {nonce_of(client.get("/accounts/tokens/")) for _ in range(3)}

    assert len(nonces) == 3


def test_the_policy_runs_no_inline_code_no_eval_no_plugin_and_no_frame(client):
    policy = policy_of(client.get("/accounts/login/"))

    for directive in ("script-src", "style-src"):
        assert "'unsafe-inline'" not in policy[directive]
        assert "'unsafe-eval'" not in policy[directive]
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["form-action"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["img-src"] == ["'self'"]
    assert "worker-src" not in policy  # as script-src: this origin's files only


def test_only_the_api_docs_pages_allow_data_images_and_only_redoc_a_blob_worker(client):
    swagger = policy_of(client.get("/api/docs/"))
    redoc_page = policy_of(client.get("/api/redoc/"))

    assert swagger["img-src"] == ["'self'", "data:"]
    assert "worker-src" not in swagger
    assert redoc_page["img-src"] == ["'self'", "data:"]
    assert redoc_page["worker-src"] == ["blob:"]
    assert swagger["script-src"][0] == redoc_page["script-src"][0] == "'self'"


def test_htmx_is_told_to_add_no_style_and_evaluate_nothing(alice):
    html = signed_in(alice).get("/").content.decode()

    [config] = re.findall(r"<meta name=\"htmx-config\" content='([^']*)'>", html)
    assert '"includeIndicatorStyles": false' in config
    assert '"allowEval": false' in config
    assert '"allowScriptTags": false' in config


def test_the_list_and_a_row_poll_when_needed_without_a_filter_for_htmx_to_evaluate(alice):
    document = make_document(alice)
    client = signed_in(alice)

    for html in (
        client.get("/").content.decode(),
        client.get(f"/documents/{document.id}/").content.decode(),
    ):
        assert re.search(
            r'hx-trigger="refresh from:body, every \d+s" data-poll="when-needed"', html
        )


# ---------------------------------------------------------------- connect-src: the socket


def socket_url_of(html: str) -> str:
    [url] = re.findall(r'ws-connect="([^"]+)"', html)
    return url


def test_connect_src_allows_the_socket_the_page_opens_on_ws_port_of_its_host(settings, alice):
    settings.INGEST_WS_URL = ""
    settings.WS_PORT = 8101

    response = signed_in(alice).get("/")

    assert socket_url_of(response.content.decode()) == "ws://testserver:8101/ws/status/"
    assert policy_of(response)["connect-src"] == ["'self'", "ws://testserver:8101/ws/status/"]


def test_over_https_the_socket_allowed_is_wss(settings, alice):
    settings.INGEST_WS_URL = ""
    settings.WS_PORT = 8101
    settings.ALLOWED_HOSTS = ["ingest.example.com"]

    response = signed_in(alice).get("/", secure=True, HTTP_HOST="ingest.example.com")

    assert socket_url_of(response.content.decode()) == "wss://ingest.example.com:8101/ws/status/"
    assert "wss://ingest.example.com:8101/ws/status/" in policy_of(response)["connect-src"]


def test_a_socket_path_is_allowed_on_the_pages_own_host(settings, alice):
    """INGEST_WS_URL=/ws/status/: htmx opens ws://<the page's host>/ws/status/."""
    settings.INGEST_WS_URL = "/ws/status/"
    settings.ALLOWED_HOSTS = ["ingest.example.com"]

    response = signed_in(alice).get("/", HTTP_HOST="ingest.example.com:8443")

    assert socket_url_of(response.content.decode()) == "/ws/status/"
    assert policy_of(response)["connect-src"] == [
        "'self'",
        "ws://ingest.example.com:8443/ws/status/",
    ]


def test_a_socket_url_of_its_own_is_allowed_as_it_is_set(settings, alice):
    settings.INGEST_WS_URL = "wss://status.example.com/ws/status/"

    response = signed_in(alice).get("/")

    assert policy_of(response)["connect-src"] == ["'self'", "wss://status.example.com/ws/status/"]


def test_an_ipv6_host_which_a_source_cannot_name_allows_its_scheme():
    assert csp.as_source("ws://[::1]:8001/ws/status/") == "ws:"
    assert csp.as_source("ws://127.0.0.1:8001/ws/status/?a=b") == "ws://127.0.0.1:8001/ws/status/"
    assert csp.as_source("wss://h.example/a;b,c d") == "wss://h.example/a%3Bb%2Cc%20d"


# ---------------------------------------------------------------- connect-src: the bucket


def with_bucket(variables: dict[str, str]):
    """The settings' STORAGES as a deployment with these INGEST_S3_* variables has them."""
    return override_settings(STORAGES=storages_for_environment(variables))


def test_without_a_bucket_connect_src_names_no_storage(client):
    assert policy_of(client.get("/accounts/login/"))["connect-src"] == [
        "'self'",
        "ws://testserver:8001/ws/status/",
    ]


def test_connect_src_allows_an_s3_compatible_servers_origin(client):
    variables = {
        "INGEST_S3_BUCKET": "page-uploads",
        "INGEST_S3_ENDPOINT_URL": "http://127.0.0.1:8333",
        "INGEST_S3_ACCESS_KEY_ID": "key-id",
        "INGEST_S3_SECRET_ACCESS_KEY": "secret",
    }
    with with_bucket(variables):
        policy = policy_of(client.get("/accounts/login/"))

    assert policy["connect-src"][-1] == "http://127.0.0.1:8333"


def test_connect_src_allows_the_aws_buckets_virtual_hosted_origin_that_uploads_are_signed_for(
    client,
):
    variables = {
        "INGEST_S3_BUCKET": "page-uploads",
        "INGEST_S3_REGION": "eu-west-1",
        "INGEST_S3_ACCESS_KEY_ID": "key-id",
        "INGEST_S3_SECRET_ACCESS_KEY": "secret",
    }
    with with_bucket(variables):
        policy = policy_of(client.get("/accounts/login/"))
        # What documents.direct.starting hands the page: a form signed by the storage's own client
        # (signed here, sent nowhere).
        signed = storages["default"].connection.meta.client.generate_presigned_post(
            "page-uploads", "uploads/x.pdf"
        )["url"]

    assert policy["connect-src"][-1] == "https://page-uploads.s3.amazonaws.com"
    assert signed.startswith("https://page-uploads.s3.amazonaws.com/")
