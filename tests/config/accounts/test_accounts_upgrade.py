"""config.accounts was the top-level `accounts` app until the layout followed the design
card. A database made before the move must work after it unchanged: the same app label,
table, migration names and rows, so every user and API token signs in as before.

(The move was also tried by hand on a database that the release before it migrated, with a
user and a token made by its own commands: `migrate` had nothing to apply and the token
answered 200.)"""

import hashlib

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.autodetector import MigrationAutodetector
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import ProjectState
from django.utils import timezone
from rest_framework.test import APIClient

from config.accounts import authentication as auth

pytestmark = pytest.mark.django_db

# What the release before the move recorded and created, by its app label.
MIGRATIONS_BEFORE_THE_MOVE = {"0001_api_tokens", "0002_keys_from_drf_authtoken"}
TABLE_BEFORE_THE_MOVE = "accounts_apitoken"


def test_the_app_keeps_the_label_table_and_migrations_it_had_at_the_top_level():
    app = apps.get_app_config("accounts")

    assert app.name == "config.accounts"
    assert app.get_model("ApiToken")._meta.db_table == TABLE_BEFORE_THE_MOVE
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM django_migrations WHERE app = 'accounts'")
        recorded = {name for (name,) in cursor.fetchall()}
    assert recorded == MIGRATIONS_BEFORE_THE_MOVE


def test_a_migrated_database_has_nothing_to_apply_and_nothing_to_make():
    executor = MigrationExecutor(connection)
    targets = executor.loader.graph.leaf_nodes()

    assert executor.migration_plan(targets) == []
    changes = MigrationAutodetector(
        executor.loader.project_state(), ProjectState.from_apps(apps)
    ).changes(graph=executor.loader.graph)
    assert "accounts" not in changes


def test_a_token_row_written_before_the_move_still_signs_its_owner_in(alice):
    key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:  # the row as the older release wrote it, by SQL
        cursor.execute(
            f"INSERT INTO {TABLE_BEFORE_THE_MOVE} "
            "(user_id, name, prefix, digest, created_at, expires_at) "
            "VALUES (%s, 'laptop', %s, %s, %s, NULL)",
            [alice.id, key[:8], hashlib.sha256(key.encode()).hexdigest(), timezone.now()],
        )
    auth._known.clear()

    response = APIClient().get("/api/documents/", HTTP_AUTHORIZATION=f"Token {key}")

    assert response.status_code == 200
    assert response.wsgi_request.user == alice
