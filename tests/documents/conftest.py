"""Storage fixtures: a private local media root, and a real S3 server.

The S3 server is SeaweedFS (`weed mini`, config/tooling/s3.py): a process of its own,
spoken to by boto3 over a socket exactly as AWS or MinIO would be, with one identity
whose signature it checks. Nothing is mocked inside boto3. The storage settings come
from config/settings.py itself, run with the INGEST_S3_* variables, so the tests use the
options a deployment would.
"""

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.test import override_settings
from storages.backends.s3 import S3Storage

from config.tooling.s3 import S3Server
from documents.page.socket import consumer

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BUCKET = "ingest-tests"
FILESYSTEM = "django.core.files.storage.FileSystemStorage"


def settings_process(variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Load config/settings.py in a fresh process with `variables` in its environment and
    print settings.STORAGES as JSON.

    A subprocess, because settings are read once at import: this is the honest way to see
    what a deployment with these variables would run with.
    """
    environment = {
        name: value for name, value in os.environ.items() if not name.startswith("INGEST_S3_")
    }
    environment.update(variables, DJANGO_SETTINGS_MODULE="config.settings")
    program = "import json; from django.conf import settings; print(json.dumps(settings.STORAGES))"
    return subprocess.run(
        [sys.executable, "-c", program],
        cwd=PROJECT_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def storages_for_environment(variables: dict[str, str]) -> dict:
    """settings.STORAGES as a deployment with `variables` set computes it."""
    completed = settings_process(variables)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory) -> Iterator[S3Server]:
    """A SeaweedFS S3 server on 127.0.0.1 with the bucket BUCKET, for the whole run."""
    server = S3Server(tmp_path_factory.mktemp("s3"), bucket=BUCKET).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def s3_endpoint(s3_server) -> str:
    return s3_server.url


@pytest.fixture(scope="session")
def s3_storages(s3_server) -> dict:
    """STORAGES for the test bucket, as config/settings.py builds it from INGEST_S3_*."""
    return storages_for_environment(s3_server.variables)


@pytest.fixture
def s3_bucket(s3_server, s3_storages):
    """The default storage pointed at the (emptied) test bucket; yields a boto3 client.

    override_settings sends setting_changed, and Django's storages_changed receiver
    (django/test/signals.py) then forgets the storages it built and empties the lazy
    `default_storage`, so every `default_storage` user, the upload service and the
    worker included, builds an S3Storage on its next use. The isinstance check below
    (LazyObject forwards __class__) proves it did.
    """
    s3_server.empty()
    with override_settings(STORAGES=s3_storages):
        assert isinstance(default_storage, S3Storage), "default_storage was not reset"
        yield s3_server.client()
    s3_server.empty()


@pytest.fixture
def local_media(tmp_path) -> Iterator[Path]:
    """The default (filesystem) storage in a directory of this test's own.

    The run's shared media root holds files of other tests whose rows are gone, which
    cleanup would rightly count as orphans.
    """
    root = tmp_path / "media"
    local = {**settings.STORAGES, "default": {"BACKEND": FILESYSTEM}}
    with override_settings(MEDIA_ROOT=root, STORAGES=local):
        assert isinstance(default_storage, FileSystemStorage)
        assert Path(default_storage.location) == root
        yield root


@pytest.fixture(params=["local", "s3"])
def storage_kind(request) -> str:
    """Run the test once on local storage and once on S3; the storage is the default."""
    request.getfixturevalue("local_media" if request.param == "local" else "s3_bucket")
    return request.param


@pytest.fixture(scope="session", autouse=True)
def status_row_threads(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The status consumer reads rows on its own threads, each holding a connection to the
    test database; end them before the database is dropped (their connections go with them)."""
    yield
    consumer.ROW_THREADS.shutdown(wait=True)
    gc.collect()
