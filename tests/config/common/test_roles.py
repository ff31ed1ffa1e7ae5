"""Each database connection names the Procfile process that holds it (application_name)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from config.common.roles import own_database_variable, process_role
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


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`manage.py <args>` in a process of its own, with `env`."""
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


@pytest.mark.django_db
def test_postgres_sees_the_connections_role():
    program = (
        "import django; django.setup(); from django.db import connection; "
        "c = connection.cursor(); c.execute('SHOW application_name'); print(c.fetchone()[0])"
    )
    env = {**os.environ, "DATABASE_URL": database_url(connection.settings_dict)}
    done = manage(env, "shell", "-c", program)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "ingest shell"


@pytest.mark.django_db
def test_a_process_line_reads_its_own_database_url_first():
    """RELEASE_DATABASE_URL for `migrate` (the release line), DATABASE_URL for a shell: with
    PgBouncer, a line's own database name is its own pool (jobs/ops/budget.py)."""
    env = {
        **os.environ,
        "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/shared",
        "RELEASE_DATABASE_URL": database_url(connection.settings_dict),
    }
    release = manage(env, "migrate", "--check")
    program = "from django.conf import settings; print(settings.DATABASES['default']['NAME'])"
    shell = manage(env, "shell", "-c", program)

    assert release.returncode == 0, release.stderr  # reached the test database
    assert shell.stdout.strip().splitlines()[-1] == "shared"


@pytest.mark.parametrize(
    ("role", "variable"),
    [
        ("ingest web", "WEB_DATABASE_URL"),
        ("ingest ws", "WS_DATABASE_URL"),
        ("ingest worker", "WORKER_DATABASE_URL"),
        ("ingest sweeper", "SWEEPER_DATABASE_URL"),
        ("ingest shell", None),
        ("ingest", None),
    ],
)
def test_each_lines_own_database_variable(role, variable):
    assert own_database_variable(role) == variable
