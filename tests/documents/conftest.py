"""Storage fixtures: a private local media root, and a real S3-compatible server.

The S3 server is moto in standalone mode: a real HTTP server in a thread of the test
process, spoken to by boto3 over a socket exactly as AWS or MinIO would be. Nothing is
mocked inside boto3. The storage settings come from config/settings.py itself, run with
the INGEST_S3_* variables, so the tests use the options a deployment would.
"""

import gc
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.test import override_settings
from moto.server import ThreadedMotoServer
from storages.backends.s3 import S3Storage

from documents import consumers

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BUCKET = "ingest-tests"
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
REGION = "us-east-1"
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
def s3_endpoint() -> Iterator[str]:
    """URL of a moto S3 server on 127.0.0.1, with the bucket BUCKET, for the whole run."""
    # Port 0: the kernel picks a free port at bind time, so no other process can take it
    # between choosing and binding.
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    # The server's per-request access log would bury a failing test's own output.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    s3_client(endpoint).create_bucket(Bucket=BUCKET)
    yield endpoint
    server.stop()


def s3_client(endpoint: str):
    return boto3.client("s3", endpoint_url=endpoint, region_name=REGION, **CREDENTIALS)


@pytest.fixture(scope="session")
def s3_storages(s3_endpoint) -> dict:
    """STORAGES for the moto bucket, as config/settings.py builds it from INGEST_S3_*."""
    return storages_for_environment(
        {
            "INGEST_S3_BUCKET": BUCKET,
            "INGEST_S3_ENDPOINT_URL": s3_endpoint,
            "INGEST_S3_REGION": REGION,
            "INGEST_S3_ACCESS_KEY_ID": CREDENTIALS["aws_access_key_id"],
            "INGEST_S3_SECRET_ACCESS_KEY": CREDENTIALS["aws_secret_access_key"],
        }
    )


@pytest.fixture
def s3_bucket(s3_endpoint, s3_storages):
    """The default storage pointed at the (emptied) moto bucket; yields a boto3 client.

    override_settings sends setting_changed, and Django's storages_changed receiver
    (django/test/signals.py) then forgets the storages it built and empties the lazy
    `default_storage`, so every `default_storage` user, the upload service and the
    worker included, builds an S3Storage on its next use. The isinstance check below
    (LazyObject forwards __class__) proves it did.
    """
    client = s3_client(s3_endpoint)
    _empty(client)
    with override_settings(STORAGES=s3_storages):
        assert isinstance(default_storage, S3Storage), "default_storage was not reset"
        yield client
    _empty(client)


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


def _empty(client) -> None:
    listing = client.list_objects_v2(Bucket=BUCKET)
    for entry in listing.get("Contents", []):
        client.delete_object(Bucket=BUCKET, Key=entry["Key"])


@pytest.fixture(scope="session", autouse=True)
def status_row_threads(django_db_setup, django_db_blocker) -> Iterator[None]:
    """The status consumer reads rows on its own threads, each holding a connection to the
    test database; end them before the database is dropped (their connections go with them)."""
    yield
    consumers.ROW_THREADS.shutdown(wait=True)
    gc.collect()
