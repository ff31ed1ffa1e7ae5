"""Dead ends in the site's style: 404, 400 (a host name not in DJANGO_ALLOWED_HOSTS, with
the setting named while DJANGO_DEBUG is on), 403 and 500 pages; JSON under /api/ all the
same; the favicon; the admin's name and its links back to the site."""

import json
import uuid

import pytest
from django.contrib.auth.models import Permission, User
from django.contrib.staticfiles import finders
from django.test import Client, RequestFactory

from config.http import api_fallbacks

pytestmark = pytest.mark.django_db

SITE_PAGE = 'class="card problem-page"'


@pytest.fixture
def staff(db) -> User:
    user = User.objects.create_user("olivia", password="olivia-password", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_job"))
    return user


def signed_in(user: User, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def html_of(response, status: int) -> str:
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert SITE_PAGE in html
    assert "css/site.css" in html
    return html


def json_of(response, status: int, code: str) -> dict:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert body["code"] == code
    return body


# ---------------------------------------------------------------- 404


def test_an_unknown_page_is_a_404_in_the_sites_style(client):
    html = html_of(client.get("/no-such-page/"), 404)

    assert "Nothing here" in html
    assert "<code>/no-such-page/</code>" in html
    assert 'href="/"' in html


def test_a_signed_in_users_404_keeps_the_header_and_says_it_may_be_someone_elses(alice):
    html = html_of(signed_in(alice).get(f"/documents/{uuid.uuid4()}/"), 404)

    assert "alice" in html  # the header, signed in
    assert "belongs to another account" in html


def test_a_404_under_the_api_stays_json(client, alice):
    json_of(client.get("/api/no-such-endpoint/"), 404, "not_found")
    json_of(signed_in(alice).get(f"/api/documents/{uuid.uuid4()}/"), 404, "not_found")


def test_an_http404_from_a_view_outside_drf_under_the_api_is_json():
    request = RequestFactory().get("/api/redoc/whatever")

    response = api_fallbacks.not_found(request, Exception("gone"))

    json_of(response, 404, "not_found")


# ---------------------------------------------------------------- 400: the host name


@pytest.mark.parametrize("debug", [False, True])
def test_a_host_not_allowed_gets_a_400_page_naming_the_setting_only_in_debug(settings, debug):
    settings.DEBUG = debug
    client = Client(HTTP_HOST="ingest.example.org:8000")

    html = html_of(client.get("/"), 400)

    assert "This server does not answer to the name “ingest.example.org”" in html
    if debug:
        assert "<code>DJANGO_ALLOWED_HOSTS</code>" in html
        assert "<code>ingest.example.org</code>" in html
        assert "DJANGO_ALLOWED_HOSTS=" in html
    else:
        assert "DJANGO_ALLOWED_HOSTS" not in html
        assert "testserver" not in html  # the allowed names stay unsaid


@pytest.mark.parametrize("debug", [False, True])
def test_a_host_not_allowed_under_the_api_is_json(settings, debug):
    settings.DEBUG = debug
    client = Client(HTTP_HOST="ingest.example.org")

    body = json_of(client.get("/api/documents/"), 400, "bad_request")

    assert "ingest.example.org" in body["detail"]
    assert ("DJANGO_ALLOWED_HOSTS" in body["detail"]) is debug


def test_a_host_name_with_markup_is_shown_as_text(settings):
    settings.DEBUG = True
    client = Client(HTTP_HOST="<b>x</b>")

    response = client.get("/")

    assert response.status_code == 400
    assert "<b>x</b>" not in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/healthz", "/metrics"])
def test_probes_and_scrapes_by_a_pods_address_are_answered(path):
    client = Client(HTTP_HOST="10.244.3.17:8000", REMOTE_ADDR="127.0.0.1")

    response = client.get(path)

    assert response.status_code == 200
    assert Client(HTTP_HOST="10.244.3.17:8000").get("/api/documents/").status_code == 400


def test_an_allowed_host_passes(client):
    assert Client(HTTP_HOST="localhost").get("/accounts/login/").status_code == 200


def test_djangos_other_400s_get_the_sites_page():
    response = api_fallbacks.bad_request(RequestFactory().get("/"), Exception("unreadable"))

    html = html_of(response, 400)
    assert "could not be read" in html


# ---------------------------------------------------------------- 403, 500


def test_a_page_the_account_cannot_open_is_a_403_that_says_why(alice):
    html = html_of(signed_in(alice).get("/ops/"), 403)

    assert "Your account cannot open this page" in html
    assert "staff who may see jobs" in html


def test_a_form_without_its_csrf_token_gets_the_sites_403(client):
    client = Client(enforce_csrf_checks=True)

    html = html_of(client.post("/accounts/login/", {"username": "a", "password": "b"}), 403)

    assert "That form had expired" in html


def test_an_unhandled_error_outside_the_api_is_the_sites_500():
    html = html_of(api_fallbacks.server_error(RequestFactory().get("/")), 500)

    assert "Something failed on our side" in html


# ---------------------------------------------------------------- links, icon, admin


def test_staff_see_links_to_ops_the_admin_and_the_api_docs(staff):
    html = signed_in(staff).get("/").content.decode()

    for href in ('href="/ops/"', 'href="/admin/"', 'href="/api/docs/"', 'href="/accounts/tokens/"'):
        assert href in html


def test_a_normal_user_sees_no_staff_links(alice):
    html = signed_in(alice).get("/").content.decode()

    assert 'href="/api/docs/"' in html
    assert 'href="/ops/"' not in html
    assert 'href="/admin/"' not in html


def test_pages_name_the_svg_favicon_and_favicon_ico_leads_to_it(client):
    html = client.get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html
    assert finders.find("favicon.svg")

    response = client.get("/favicon.ico")

    assert response.status_code == 302
    assert response["Location"] == "/static/favicon.svg"


def test_the_admin_has_the_sites_name_icon_and_links_back(staff):
    html = signed_in(staff).get("/admin/").content.decode()

    assert "<title>Documents, jobs, webhooks and accounts | Ingest admin</title>" in html
    assert "Ingest administration</a>" in html
    assert 'href="/static/favicon.svg"' in html
    for link in (
        '<a class="site-link" href="/">Documents page</a>',
        '<a class="site-link" href="/ops/">Ops</a>',
        '<a class="site-link" href="/api/docs/">API docs</a>',
    ):
        assert link in html


def test_the_admin_sign_in_page_has_the_sites_name(client):
    html = client.get("/admin/login/").content.decode()

    assert "Ingest administration" in html
    assert 'href="/static/favicon.svg"' in html
