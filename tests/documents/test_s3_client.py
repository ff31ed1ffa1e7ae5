"""One boto3 client per process: threads share it, and a process builds it as it starts."""

import runpy
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from config.web import SETTINGS as GUNICORN_SETTINGS
from tests.conftest import running_worker
from tests.documents.conftest import BUCKET

THREADS = 8


def store_from_a_thread(index: int) -> tuple[int, int, str]:
    """What one thread of a web or worker process sees: its client, its resource, a save."""
    name = default_storage.save(f"shared-client/{index}.txt", ContentFile(f"file {index}".encode()))
    connection = default_storage.connection
    return id(connection.meta.client), id(connection), name


@pytest.mark.django_db
def test_threads_share_one_client_each_through_a_resource_of_its_own(s3_bucket):
    with ThreadPoolExecutor(THREADS) as pool:
        seen = list(pool.map(store_from_a_thread, range(THREADS)))

    clients = {client for client, _, _ in seen}
    resources = {resource for _, resource, _ in seen}
    assert len(clients) == 1
    assert len(resources) == THREADS  # boto3's resources are not thread-safe: one each
    listed = s3_bucket.list_objects_v2(Bucket=BUCKET, Prefix="shared-client/")["Contents"]
    assert sorted(item["Key"] for item in listed) == sorted(name for _, _, name in seen)


@pytest.mark.django_db
def test_the_shared_client_keeps_a_connection_for_every_thread(s3_bucket):
    client = default_storage.connection.meta.client

    assert client.meta.config.max_pool_connections >= 4 * THREADS


def test_a_worker_process_builds_its_client_as_it_boots(broker, s3_bucket):
    storage = default_storage._wrapped  # the fixture's fresh storage, not used yet
    assert storage._shared is None

    with running_worker(broker):
        assert storage._shared is not None


def test_a_web_process_builds_its_client_before_its_first_request(s3_bucket):
    storage = default_storage._wrapped
    assert storage._shared is None
    hooks = runpy.run_path(str(GUNICORN_SETTINGS))

    hooks["post_worker_init"](worker=None)  # gunicorn calls it once the app is loaded

    assert storage._shared is not None
