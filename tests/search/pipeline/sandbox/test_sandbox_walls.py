"""What the extractor child can see and touch, tried from inside: a probe confines itself
exactly as the reader does (confine.confine_child, then the reader's imports, then
child.put_up_walls) and attempts what code running in a hijacked PDF parser would:
read the secret key and another tenant's file, read a sibling's environment, ptrace or
signal it, reach a local TCP service, append to application code, start a process. Each
must be refused, as root (CI, containers) and as an ordinary user; its scratch directory
and a late import must still work."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from search.pipeline.sandbox import landlock, process

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or landlock.abi() == 0, reason="needs Linux with Landlock"
)

NOBODY = 65534
PROBE = """
import ctypes, errno, json, os, signal, socket, sys
from search.pipeline.sandbox.confine import confine_child
confine_child(memory_mb=512, cpu_seconds=60)
from search.pipeline.reader import read_pdf  # what the child imports before its walls
from search.pipeline.sandbox.child import put_up_walls
walls = put_up_walls()
target = json.loads(sys.argv[1])
outcomes = {}

def attempt(name, action):
    try:
        action()
        outcomes[name] = "allowed"
    except OSError as exc:
        outcomes[name] = errno.errorcode.get(exc.errno, str(exc.errno))

def read(path):
    with open(path, "rb") as f:
        f.read(1)

def ptrace(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")

def late_import():
    import pdfminer.cmapdb  # noqa: F401

attempt("read the secret key", lambda: read(target["secret_key"]))
attempt("read another tenant's stored PDF", lambda: read(target["other_pdf"]))
attempt("list the storage root", lambda: os.listdir(target["storage"]))
attempt("read a sibling's environment", lambda: read(f"/proc/{target['sibling']}/environ"))
attempt("ptrace a sibling", lambda: ptrace(target["sibling"]))
attempt("signal a sibling", lambda: os.kill(target["sibling"], signal.SIGTERM))
attempt("connect to a local TCP service", lambda: socket.create_connection(
    ("127.0.0.1", target["port"]), timeout=3))
attempt("append to application code", lambda: open(target["code"], "a").close())
attempt("start a process", os.fork)
outcomes["secrets in its environment"] = sorted(
    k for k in os.environ if any(w in k for w in ("SECRET", "KEY", "PASSWORD", "TOKEN")))
attempt("write its scratch directory", lambda: open(
    os.path.join(os.environ["TMPDIR"], "note"), "w").close())
attempt("import a module late", late_import)
print(json.dumps({"walls": walls, "outcomes": outcomes}))
"""


@pytest.fixture
def targets(tmp_path) -> Iterator[dict]:
    """What a hostile parser would go for, each readable by the probe's user: a 0600
    secret key and another tenant's PDF in a data directory, a sibling process with
    secrets in its environment, a local TCP service, a file of application code."""
    data = tmp_path / "var"
    (data / "media" / "documents" / "7").mkdir(parents=True)
    secret_key = data / "secret_key"
    secret_key.write_text("the-real-secret-key")
    secret_key.chmod(0o600)
    other_pdf = data / "media" / "documents" / "7" / "v1.pdf"
    other_pdf.write_bytes(b"%PDF-1.4 another tenant's contract")
    code = Path(process.PROJECT_ROOT) / "search" / f"_probe_target_{os.getpid()}.py"
    code.write_text("# a file of application code\n")
    service = socket.create_server(("127.0.0.1", 0))
    yield {
        "data": data,
        "secret_key": str(secret_key),
        "other_pdf": str(other_pdf),
        "storage": str(data / "media"),
        "code": str(code),
        "port": service.getsockname()[1],
        "service": service,
    }
    service.close()
    code.unlink(missing_ok=True)


def as_user(uid: int | None) -> list[str]:
    if uid is None:
        return []
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def give_to(uid: int | None, *paths: Path) -> None:
    if uid is None:
        return
    for path in paths:
        for entry in [path, *path.rglob("*")] if path.is_dir() else [path]:
            os.chown(entry, uid, uid)


@pytest.mark.parametrize("uid", [None, NOBODY], ids=["as root", "as an ordinary user"])
def test_the_child_is_refused_everything_but_its_own_work(targets, uid):
    if uid is not None and os.geteuid() != 0:
        pytest.skip("switching to another user needs root")
    if uid is None and os.geteuid() != 0:
        uid = None  # already an ordinary user: the first case covers it
    give_to(uid, targets["data"], Path(targets["code"]))
    secrets = {"DJANGO_SECRET_KEY": "sibling-secret", "OPENAI_API_KEY": "sk-sibling"}
    sibling = subprocess.Popen([*as_user(uid), "sleep", "120"], env={**os.environ, **secrets})
    scratch = tempfile.mkdtemp(prefix="ingest-reader-")
    give_to(uid, Path(scratch))
    target = {key: value for key, value in targets.items() if key not in ("data", "service")}
    try:
        done = subprocess.run(
            [
                *as_user(uid),
                sys.executable,
                "-P",
                "-c",
                textwrap.dedent(PROBE),
                json.dumps({**target, "sibling": sibling.pid}),
            ],
            env=process._child_environment("pdfminer", scratch),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert sibling.poll() is None, "the probe's signal reached the sibling"
    finally:
        sibling.kill()
        sibling.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    outcomes = report["outcomes"]

    assert report["walls"]["landlock"] >= 1
    refused = {name: outcome for name, outcome in outcomes.items() if outcome != "allowed"}
    for name in (
        "read the secret key",
        "read another tenant's stored PDF",
        "list the storage root",
        "read a sibling's environment",
        "ptrace a sibling",
        "signal a sibling",
        "connect to a local TCP service",
        "append to application code",
        "start a process",
    ):
        assert name in refused, f"{name}: {outcomes[name]}"
    assert outcomes["secrets in its environment"] == []
    assert outcomes["write its scratch directory"] == "allowed"
    assert outcomes["import a module late"] == "allowed"


def test_a_warm_reader_reads_one_owners_documents_only(tmp_path):
    from search.pipeline.sandbox.pool import Pool
    from tests.factories import make_pdf

    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(make_pdf(pages=1))
    pool = Pool(size=2, recycle_after=50, memory_mb=256, extractor="pdfminer")
    try:
        pool.read(pdf, max_pages=5, timeout=60, owner=1)
        [first] = pool.idle_pids()
        pool.read(pdf, max_pages=5, timeout=60, owner=1)
        again = pool.idle_pids()
        pool.read(pdf, max_pages=5, timeout=60, owner=2)
        after_other = pool.idle_pids()
    finally:
        pool.close()

    assert again == [first]  # the same owner: the same warm child
    assert first in after_other
    assert len(after_other) == 2
