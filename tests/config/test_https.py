"""HTTPS behind a proxy: the docs' production environment passes `check --deploy`,
turns on secure cookies, HSTS and the proxy's X-Forwarded-Proto; under it, status URLs,
`Location` and the page's socket use https and wss."""

import ipaddress
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from config.accounts.tokens import issue_token
from tests.conftest import pdf_upload
from tests.factories import make_pdf

ROOT = Path(__file__).resolve().parents[2]


def documented_production_environment() -> dict[str, str]:
    """The NAME=value lines of the sh block under "HTTPS behind a proxy" in the serving docs."""
    page = (ROOT / "docs" / "running" / "serving.md").read_text()
    after = page[page.index("## HTTPS behind a proxy") :]
    block = re.search(r"```sh\n(.*?)```", after, re.DOTALL).group(1)
    pairs = [line.split("#")[0].strip() for line in block.splitlines()]
    environment = dict(pair.split("=", 1) for pair in pairs if pair)
    assert environment["DJANGO_SECRET_KEY"].startswith("<"), "a placeholder, not a key"
    environment["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    return environment


def run_with(
    environment: dict[str, str], tmp_path: Path, *args: str
) -> subprocess.CompletedProcess:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("INGEST_", "DJANGO_"))},
        # Loading the settings must not start the embedded services; nothing connects.
        "DATABASE_URL": "postgresql://nobody@127.0.0.1:9/none",
        "REDIS_URL": "redis://127.0.0.1:9/0",
        "INGEST_DATA_DIR": str(tmp_path),
        **environment,
    }
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean_with_the_documented_production_environment(tmp_path):
    checked = run_with(
        documented_production_environment(),
        tmp_path,
        "manage.py",
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
    )

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "System check identified no issues" in checked.stdout


SHOW_SETTINGS = """
import json, django
from django.conf import settings
django.setup()
names = ["SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS",
         "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SECURE_PROXY_SSL_HEADER",
         "SECURE_SSL_REDIRECT", "SECURE_REDIRECT_EXEMPT"]
print(json.dumps({name: getattr(settings, name) for name in names}))
"""


def settings_under(environment: dict[str, str], tmp_path: Path) -> dict:
    shown = run_with(
        {"DJANGO_SETTINGS_MODULE": "config.settings", **environment},
        tmp_path,
        "-c",
        SHOW_SETTINGS,
    )
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout.splitlines()[-1])


def test_the_production_environment_turns_https_on(tmp_path):
    shown = settings_under(documented_production_environment(), tmp_path)

    assert shown == {
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31_536_000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": True,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "SECURE_SSL_REDIRECT": True,
        "SECURE_REDIRECT_EXEMPT": ["^healthz$", "^metrics$"],
    }


def test_x_forwarded_proto_is_trusted_only_when_asked(tmp_path):
    shown = settings_under({"INGEST_HTTPS": "true", "INGEST_HSTS_SECONDS": "600"}, tmp_path)
    plain = settings_under({}, tmp_path)

    assert shown["SECURE_PROXY_SSL_HEADER"] is None
    assert shown["SECURE_SSL_REDIRECT"] is False  # every request would look like http
    assert shown["SESSION_COOKIE_SECURE"] is True
    assert shown["SECURE_HSTS_SECONDS"] == 600
    assert plain["SESSION_COOKIE_SECURE"] is False
    assert plain["SECURE_HSTS_SECONDS"] == 0


@pytest.fixture
def behind_https_proxy(settings):
    """What the production environment sets (checked above), in this process."""
    settings.ALLOWED_HOSTS = ["ingest.example.com"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_SSL_REDIRECT = True
    settings.SESSION_COOKIE_SECURE = True
    settings.CSRF_COOKIE_SECURE = True
    settings.SECURE_HSTS_SECONDS = 31_536_000
    settings.INGEST_WS_URL = ""
    settings.WS_PORT = 8001
    # The test client's connection address (REMOTE_ADDR) is the trusted proxy's.
    settings.INGEST_TRUSTED_PROXIES = [ipaddress.ip_network("127.0.0.1/32")]
    return Client(HTTP_HOST="ingest.example.com", HTTP_X_FORWARDED_PROTO="https")


@pytest.mark.django_db
def test_an_upload_through_the_proxy_answers_https_urls(behind_https_proxy, alice, broker):
    key = issue_token(alice).key

    response = behind_https_proxy.post(
        "/api/documents/", {"file": pdf_upload(make_pdf())}, HTTP_AUTHORIZATION=f"Token {key}"
    )

    assert response.status_code == 202
    [result] = response.json()["results"]
    assert result["status_url"].startswith("https://ingest.example.com/api/jobs/")
    assert response["Location"] == result["status_url"]
    assert response["Strict-Transport-Security"] == "max-age=31536000"


@pytest.mark.django_db
def test_the_page_through_the_proxy_opens_wss_and_sets_secure_cookies(behind_https_proxy, alice):
    login = behind_https_proxy.post(
        "/accounts/login/", {"username": "alice", "password": "alice-password"}
    )
    page = behind_https_proxy.get("/").content.decode()

    assert login.cookies["sessionid"]["secure"] is True
    assert 'ws-connect="wss://ingest.example.com:8001/ws/status/"' in page


@pytest.mark.django_db
def test_plain_http_is_sent_to_https_except_health_and_metrics(behind_https_proxy):
    plain = Client(HTTP_HOST="ingest.example.com", HTTP_X_FORWARDED_PROTO="http")

    redirected = plain.get("/accounts/login/")

    assert redirected.status_code == 301
    assert redirected["Location"] == "https://ingest.example.com/accounts/login/"
    assert plain.get("/healthz").status_code != 301
