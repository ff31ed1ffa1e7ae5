"""Set-up for the websocket benchmark: users signed in by session, their documents, and
the daphne process under test."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.bench.services import Server, manage
from tests.bench.websockets import PAGES, PROGRESS_TOTAL
from tests.bench.websockets.client import User

# --------------------------------------------------------------------------- set-up

SETUP_SCRIPT = """
import json, uuid
from importlib import import_module
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth import get_user_model
from django.utils import timezone
from documents.models import Document
from jobs.models import Job, JobStatus, Stage

SessionStore = import_module(settings.SESSION_ENGINE).SessionStore
now = timezone.now()
users = []
for number in range({users}):
    user = get_user_model().objects.create_user(f"ws-bench{{number}}")
    session = SessionStore()  # what a sign-in stores
    session[SESSION_KEY] = user._meta.pk.value_to_string(user)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    documents = Document.objects.bulk_create(
        Document(owner=user, filename=f"report-{{n}}.pdf", size=250_000 + n,
                 sha256=uuid.uuid4().hex * 2, storage_key=f"bench/{{user.pk}}/{{n}}.pdf",
                 page_count={pages})
        for n in range({documents})
    )
    jobs = Job.objects.bulk_create(
        Job(document=d, owner=user, version=1, storage_key=d.storage_key,
            status=JobStatus.PROCESSING, attempts=1, progress_total={total},
            stage=Stage.EMBEDDING, pages_done={pages}, pages_total={pages},
            started_at=now, heartbeat_at=now, worker="bench")
        for d in documents
    )
    for document, job in zip(documents, jobs):
        document.current_job = job
    Document.objects.bulk_update(documents, ["current_job"])
    users.append(dict(id=user.pk, session=session.session_key,
                      documents=[[str(d.id), str(j.id)] for d, j in zip(documents, jobs)]))
print(json.dumps(dict(cookie=settings.SESSION_COOKIE_NAME, users=users)))
"""


def prepare(env: dict[str, str], users: int, documents: int) -> tuple[str, list[User]]:
    """Migrate; `users` signed-in users, each with `documents` processing documents."""
    manage(env, "migrate", "--noinput", "--verbosity", "0")
    script = SETUP_SCRIPT.format(
        users=users, documents=documents, total=PROGRESS_TOTAL, pages=PAGES
    )
    data = json.loads(manage(env, "shell", "-c", script).strip().splitlines()[-1])
    made = [
        User(u["id"], u["session"], [tuple(pair) for pair in u["documents"]]) for u in data["users"]
    ]
    return data["cookie"], made


class Daphne(Server):
    """One daphne serving config.ws_app as the Procfile's `ws` process (start/stop as Server)."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        from config.tooling import embedded

        self.label = "daphne"
        self.ready_path, self.ready_status = "/ws/status/", 426
        self.port = embedded.free_port()
        self.command = [sys.executable, "-m", "daphne"]
        self.command += ["--bind", "127.0.0.1", "--port", str(self.port)]
        self.command += ["config.ws_app:application"]
        # As the Procfile's `ws` line: no per-call health check (docs/running/serving.md).
        self.env = dict(env, DATABASE_CONN_HEALTH_CHECKS="false")
        self.log = logs / "daphne.log"
        self.process = None
