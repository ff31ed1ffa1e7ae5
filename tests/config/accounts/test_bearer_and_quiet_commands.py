"""API tokens under `Bearer` as well as `Token`, and manage.py commands without axes' banner."""

import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from config.accounts import tokens

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def key(django_user_model) -> str:
    user = django_user_model.objects.create_user("carol", password="x")
    return tokens.issue_token(user).key


@pytest.mark.parametrize("scheme", ["Token", "Bearer", "bearer"])
def test_either_scheme_reaches_the_api(key, scheme):
    client = APIClient()

    response = client.get("/api/documents/", HTTP_AUTHORIZATION=f"{scheme} {key}")

    assert response.status_code == 200


def test_a_wrong_key_under_bearer_is_refused(key):
    client = APIClient()

    response = client.get("/api/documents/", HTTP_AUTHORIZATION="Bearer not-a-key")

    assert response.status_code == 401


def test_the_schema_offers_the_bearer_form():
    schemes = APIClient().get("/api/schema/?format=json").json()["components"]["securitySchemes"]

    assert schemes["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "An API token as `Authorization: Bearer <key>`",
    }


def test_a_management_command_prints_no_axes_banner():
    result = subprocess.run(
        [sys.executable, "manage.py", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert "AXES" not in result.stdout + result.stderr
    assert "create_token" in result.stdout
