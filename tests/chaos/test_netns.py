"""The test hosts the multi-host scenario runs on (tests/harness/netns.py): each reaches
the others only over its link, sees only its own directory, and can be cut off."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.harness import netns

pytestmark = pytest.mark.skipif(netns.unavailable() is not None, reason=str(netns.unavailable()))

FETCH = (
    "import sys, urllib.request\n"
    "try:\n"
    "    print(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())\n"
    "except OSError as exc:\n"
    "    print('unreachable', type(exc).__name__); sys.exit(3)\n"
)


@pytest.fixture
def cluster() -> Iterator[netns.Cluster]:
    made = netns.Cluster()
    try:
        yield made.create(["a", "b"])
    finally:
        made.remove()


def fetch(host: netns.Host, url: str) -> subprocess.CompletedProcess:
    return host.run([sys.executable, "-c", FETCH, url], capture_output=True, text=True, timeout=30)


def test_hosts_reach_each_other_over_their_links_and_keep_their_own_disks(cluster):
    a, b = cluster.hosts["a"], cluster.hosts["b"]
    written = a.run(["sh", "-c", "echo from-a > own.txt && pwd"], capture_output=True, text=True)
    assert written.returncode == 0, written.stderr
    server = a.popen(
        [sys.executable, "-m", "http.server", "8080", "--bind", a.address],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://{a.address}:8080/own.txt"
        deadline = time.monotonic() + 20
        while (answer := fetch(b, url)).returncode != 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert answer.stdout.strip() == "from-a"

        peeked = b.run(["cat", str(a.root / "own.txt")], capture_output=True, text=True)
        assert peeked.returncode != 0  # a's directory does not exist on b
        assert "No such file" in peeked.stderr

        a.cut()
        assert fetch(b, url).returncode == 3
        a.mend()
        deadline = time.monotonic() + 20
        while (answer := fetch(b, url)).returncode != 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert answer.stdout.strip() == "from-a"
    finally:
        server.kill()
        server.wait(10)


def test_each_host_has_a_name_and_a_process_table_its_processes_share(cluster):
    a, b = cluster.hosts["a"], cluster.hosts["b"]
    seen = "import os, socket; print(socket.gethostname(), os.readlink('/proc/self/ns/pid'))"

    def look(host: netns.Host) -> tuple[str, str]:
        done = host.run([sys.executable, "-c", seen], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        name, table = done.stdout.split()
        return name, table

    first, second = look(a), look(a)
    assert first == second  # two processes of a host: one name, one process table
    assert first[0] == "a"
    other = look(b)
    assert other[0] == "b"
    assert other[1] != first[1]
    mine = os.readlink("/proc/self/ns/pid")
    assert mine not in (first[1], other[1])
