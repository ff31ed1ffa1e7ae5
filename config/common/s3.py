"""django-storages' S3 backend with one boto3 client per process, made at start.

django-storages builds a boto3 session and client for every thread on its first use. Each
costs about 136 ms of CPU, loading the S3 service's description again, and a fresh web
host's threads all build theirs during their first burst of uploads: in a profile of a
200-user burst, over half the web's request time went there. A boto3 client is
thread-safe, so this backend builds one per storage (one per process: the default
storage is built once) and gives each thread only a light resource object around it
(resources are not thread-safe; creating one around an existing client costs
microseconds). `warm()` builds it when a process starts, so no request ever does.

The client's connection pool is sized for every thread of a process at once, plus the
threads s3transfer starts for a large object, so that no thread waits for, or throws
away, a connection.
"""

import threading
from typing import Any

import dramatiq
from botocore.config import Config
from dramatiq.middleware import Middleware
from storages.backends.s3 import S3Storage

# More than a process's threads (WEB_THREADS and WEB_SMALL_THREADS, a worker's) plus
# s3transfer's ten per large transfer; connections are opened only when needed, this is a
# ceiling.
MAX_POOL_CONNECTIONS = 64


class SharedClientS3Storage(S3Storage):
    """S3Storage whose threads share one boto3 client."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self.client_config: Config = self.client_config.merge(
            Config(max_pool_connections=MAX_POOL_CONNECTIONS)
        )
        self._shared: Any = None
        self._shared_lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = super().__getstate__()
        state.pop("_shared", None)
        state.pop("_shared_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._shared = None
        self._shared_lock = threading.Lock()

    @property
    def connection(self) -> Any:
        """This thread's resource object, around the storage's one client."""
        resource = getattr(self._connections, "connection", None)
        if resource is None:
            shared = self.shared_resource()
            resource = type(shared)(client=shared.meta.client)
            self._connections.connection = resource
        return resource

    def shared_resource(self) -> Any:
        """The resource the storage's client was built with, built on first call."""
        with self._shared_lock:
            if self._shared is None:
                session = self._create_session()
                self._shared = session.resource(
                    "s3",
                    region_name=self.region_name,
                    use_ssl=self.use_ssl,
                    endpoint_url=self.endpoint_url,
                    config=self.client_config,
                    verify=self.verify,
                )
            return self._shared


def warm(storage: object) -> None:
    """Build `storage`'s client now, at a process's start, if it is this backend (a
    filesystem storage has nothing to build)."""
    if isinstance(storage, SharedClientS3Storage):
        storage.shared_resource()


class WarmStorage(Middleware):
    """Dramatiq middleware: each worker process builds the storage's client as it boots,
    not in the middle of its first job."""

    def after_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        from django.core.files.storage import default_storage  # Django is loaded by now

        warm(default_storage)
