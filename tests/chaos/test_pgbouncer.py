"""The service through PgBouncer in transaction pooling (DATABASE_POOL_MODE=transaction).

gunicorn, daphne and a worker of four threads reach the test database only through a
PgBouncer with two server connections: each transaction may run on either. Uploads of
two accounts (the fair shares' advisory locks on every claim), the worker's leases,
chunks and endings, searches (their SET LOCAL settings) and the sweeper all hold, and
PgBouncer's own statistics show the traffic went through it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from config.accounts.tokens import issue_token
from tests.chaos.test_worker_crashes import assert_each_chunk_once
from tests.conftest import wait_until_terminal
from tests.factories import make_pdf
from tests.harness.pgbouncer import PgBouncer, pgbouncer_binary
from tests.harness.servers import Stack

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(pgbouncer_binary() is None, reason="pgbouncer is not installed"),
]
SERVER_CONNECTIONS = 2


@pytest.fixture
def pgbouncer() -> Iterator[PgBouncer]:
    settings = connection.settings_dict
    # Not under pytest's tmp_path: pgbouncer runs as another user when we are root, and
    # must reach its directory.
    workdir = Path(tempfile.mkdtemp(prefix="ingest-pgbouncer-"))
    workdir.chmod(0o755)
    bouncer = PgBouncer(
        workdir,
        upstream_host=settings["HOST"],
        upstream_port=int(settings["PORT"] or 5432),
        pool_size=SERVER_CONNECTIONS,
    ).start()
    yield bouncer
    bouncer.stop()
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def pooled_stack(pgbouncer, settings, tmp_path) -> Iterator[Stack]:
    env = {
        **os.environ,
        "DATABASE_URL": pgbouncer.url(connection.settings_dict["NAME"]),
        "DATABASE_POOL_MODE": "transaction",
        "REDIS_URL": settings.REDIS_URL,
        "INGEST_DATA_DIR": str(tmp_path / "data"),
        "INGEST_MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "WEB_CONCURRENCY": "1",
        "WEB_THREADS": "8",
        "WORKER_THREADS": "4",
    }
    (tmp_path / "logs").mkdir()
    stack = Stack(env, tmp_path / "logs")
    stack.collectstatic()
    stack.ensure_running()
    yield stack
    stack.stop()


def post_pdf(base_url: str, token: str, content: bytes) -> dict:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n'
            "Content-Type: application/pdf\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{base_url}/api/documents/",
        data=body,
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 202
        return json.load(answer)["results"][0]


def get(base_url: str, path: str, token: str) -> tuple[int, bytes]:
    request = urllib.request.Request(base_url + path, headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.status, answer.read()


def transactions_through(bouncer: PgBouncer, database: str) -> int:
    with psycopg.connect(
        bouncer.url("pgbouncer"), autocommit=True, prepare_threshold=None
    ) as admin:
        cursor = admin.cursor()
        cursor.execute("SHOW STATS")
        names = [column.name for column in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    return sum(int(row["total_xact_count"]) for row in rows if row["database"] == database)


def test_uploads_jobs_pages_and_the_sweeper_hold_through_pgbouncer_in_transaction_mode(
    alice, bob, pooled_stack, pgbouncer, tmp_path
):
    tokens = [issue_token(alice).key, issue_token(bob).key]
    base = pooled_stack.base_url
    accepted = [post_pdf(base, tokens[n % 2], make_pdf(pages=2, seed=200 + n)) for n in range(8)]

    finished = wait_until_terminal([item["job_id"] for item in accepted], timeout=120)

    assert {job.status for job in finished} == {"succeeded"}
    assert_each_chunk_once()
    for item, token in zip(accepted, tokens * 4, strict=True):
        status, body = get(base, f"/api/documents/{item['document_id']}/", token)
        assert status == 200
        assert json.loads(body)["chunk_count"] > 0
    query = urllib.parse.urlencode({"q": "ingestion pipeline worker"})
    for token in tokens:
        status, body = get(base, f"/api/search/?{query}", token)
        assert status == 200
        assert json.loads(body)["results"]
    sweep = subprocess.run(
        [sys.executable, "manage.py", "requeue_stuck"],
        cwd=Path(__file__).resolve().parents[2],
        env=pooled_stack.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sweep.returncode == 0, sweep.stderr
    assert transactions_through(pgbouncer, connection.settings_dict["NAME"]) > 50


ROOT = Path(__file__).resolve().parents[2]
# What would hold session state on a server connection that the next transaction may not
# get: session advisory locks, plain SET (not SET LOCAL), LISTEN, prepared statements.
# SQL as this codebase writes it: keywords in capitals.
SESSION_STATE = re.compile(
    r"pg_(try_)?advisory_lock(_shared)?\(|\bSET\s+(?!LOCAL\b)(SESSION\s+)?[a-z_.]+\s*(=|TO)\s"
    r"|\bLISTEN\s|\bPREPARE\s"
)


def test_no_code_of_the_service_keeps_session_state_on_its_connection():
    sources = [
        path
        for package in ("config", "documents", "jobs", "search")
        for path in (ROOT / package).rglob("*.py")
        # Not migrations, nor the deploy files' own tooling (config/deploy: scripts that
        # build and check the image on a database of their own).
        if "migrations" not in path.parts and "deploy" not in path.parts
    ]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sources
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if SESSION_STATE.search(line) and not line.lstrip().startswith("#")
    ]

    assert len(sources) > 50
    assert found == []


def test_transaction_pool_mode_turns_off_prepared_statements_and_server_side_cursors():
    program = (
        "import json; from django.conf import settings; d = settings.DATABASES['default']; "
        "print(json.dumps([d.get('OPTIONS', {}).get('prepare_threshold', 5), "
        "d.get('DISABLE_SERVER_SIDE_CURSORS', False)]))"
    )

    def read(mode: str) -> list:
        env = {
            **os.environ,
            "DATABASE_POOL_MODE": mode,
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        done = subprocess.run(
            [sys.executable, "-c", program], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert read("transaction") == [None, True]
    assert read("session") == [5, False]
