"""Each database connection names the Procfile process that holds it (application_name)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from config.common.roles import process_role
from tests.harness.services import database_url

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("argv", "role"),
    [
        (["/srv/.venv/bin/gunicorn", "config.wsgi", "-c", "config/gunicorn.py"], "ingest web"),
        (["/srv/config/web.py"], "ingest web"),
        (["/srv/.venv/bin/daphne", "--port", "8001", "config.ws_app:application"], "ingest ws"),
        (["dramatiq", "django_dramatiq.setup", "--processes", "1"], "ingest worker"),
        (["manage.py", "rundramatiq", "--threads", "4"], "ingest worker"),
        (["manage.py", "requeue_stuck", "--loop", "30"], "ingest sweeper"),
        (["manage.py", "migrate", "--noinput"], "ingest release"),
        (["manage.py", "cleanup_orphans"], "ingest cleanup_orphans"),
        (["-c"], "ingest"),
    ],
)
def test_the_role_comes_from_the_command_line(argv, role):
    assert process_role(argv) == role


@pytest.mark.django_db
def test_postgres_sees_the_connections_role():
    program = (
        "import django; django.setup(); from django.db import connection; "
        "c = connection.cursor(); c.execute('SHOW application_name'); print(c.fetchone()[0])"
    )
    env = {**os.environ, "DATABASE_URL": database_url(connection.settings_dict)}
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", program],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "ingest shell"
