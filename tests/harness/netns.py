"""Test hosts on one machine: network namespaces on a bridge, each with a disk of its own.

`Cluster` makes a bridge and, per host, a network namespace joined to it by a veth pair,
with an address of a private /24 the test picks. `Host.popen` runs a command in the host's
network namespace and in its mount namespace, where the host's directory is its working
directory and the cluster's other directories are hidden (a tmpfs over their parent): no
two hosts share a working directory, and a path of another host does not exist there.
Each host also has a process table and a host name of its own, shared by its processes,
as a machine's are.
`Host.cut` and `Host.mend` take its link down and up, as a network cut would. Everything
is removed by `Cluster.remove`. Needs root and iproute2 (`ip netns`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path


def unavailable() -> str | None:
    """Why namespaces cannot be made here, or None when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns); run the suite as root to include this"
    if not all(shutil.which(tool) for tool in ("ip", "unshare", "nsenter")):
        return "iproute2's ip and util-linux's unshare and nsenter are needed for test hosts"
    return None


def _running(pid: str) -> bool:
    """Whether the process runs still (a zombie, waiting for its parent, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


# A host's first process: it only reaps (processes whose parent died are handed to it).
REAPER = """
import os, time
while True:
    try:
        os.wait()
    except ChildProcessError:
        time.sleep(1)
"""


@dataclass
class Host:
    name: str  # the namespace's name
    address: str
    root: Path  # its own directory (its working directory inside)
    veth: str  # the bridge's end of its link
    init: subprocess.Popen | None = None  # `boot`'s unshare; its child is the host's init

    @property
    def hostname(self) -> str:
        return self.root.name  # the name the test gave it: web1, worker2, ...

    def boot(self) -> None:
        """The host's namespaces, held by a first process that only reaps: its network
        namespace; a mount namespace where every other host's directory is hidden; a
        process table and a host name of its own, as on another machine (a worker names
        its jobs host:pid:thread, and tells a dead neighbour by its pid only on its own
        table). Every command of the host joins them (`command`)."""
        hosts = self.root.parent
        script = (
            f"hostname {shlex.quote(self.hostname)} && "
            f"mount --bind {shlex.quote(str(self.root))} /mnt && "
            f"mount -t tmpfs -o size=1m hidden {shlex.quote(str(hosts))} && "
            f"mkdir -p {shlex.quote(str(self.root))} && "
            f"mount --move /mnt {shlex.quote(str(self.root))} && "
            f"exec {shlex.quote(sys.executable)} -c {shlex.quote(REAPER)}"
        )
        unshare = ["unshare", "--mount", "--uts", "--pid", "--fork", "--mount-proc"]
        unshare += ["--propagation", "private"]
        self.init = subprocess.Popen(
            ["ip", "netns", "exec", self.name, *unshare, "sh", "-c", script],
            start_new_session=True,
        )
        deadline = time.monotonic() + 20
        while not self._reaping():
            if self.init.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"test host {self.hostname} did not boot")
            time.sleep(0.05)

    def _first_process(self) -> int | None:
        """The host's first process (pid 1 inside), by its global pid."""
        assert self.init is not None
        children = Path(f"/proc/{self.init.pid}/task/{self.init.pid}/children")
        try:
            found = children.read_text().split()
        except OSError:
            return None
        return int(found[0]) if found else None

    def _reaping(self) -> bool:
        """Booted: the first process has made its mounts and become the reaper. Until its
        `exec`, it is still the shell, whose own command line holds the reaper's text too:
        so the program it runs is what tells."""
        pid = self._first_process()
        if pid is None:
            return False
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        return argv[0] == os.fsencode(sys.executable)

    def command(self, argv: list[str]) -> list[str]:
        """`argv` run in this host (`boot`'s namespaces), from its own directory. A signal
        to the process group reaches `argv`; its pid and host name are the host's."""
        pid = self._first_process()
        if pid is None:
            raise RuntimeError(f"test host {self.hostname} is not booted")
        script = f"cd {shlex.quote(str(self.root))} && exec {shlex.join(argv)}"
        namespaces = ["--net", "--mount", "--uts", "--pid"]
        return ["nsenter", "--target", str(pid), *namespaces, "--", "sh", "-c", script]

    def popen(self, argv: list[str], **options: object) -> subprocess.Popen:
        return subprocess.Popen(self.command(argv), **options)  # type: ignore[call-overload]

    def run(self, argv: list[str], **options: object) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(argv), **options)  # type: ignore[call-overload]

    def cut(self) -> None:
        """Its link down: nothing reaches it, it reaches nothing (its processes go on)."""
        _ip("link", "set", self.veth, "down")

    def mend(self) -> None:
        _ip("link", "set", self.veth, "up")


@dataclass
class Cluster:
    """Hosts on one bridge, in 10.<subnet>.0.0/24: the bridge is .1, hosts from .2."""

    subnet: int = 231
    tag: str = field(default_factory=lambda: f"i{os.getpid() % 100000}")
    hosts: dict[str, Host] = field(default_factory=dict)
    base: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="ingest-hosts-")))

    @property
    def bridge(self) -> str:
        return f"{self.tag}br"[:15]

    def create(self, names: list[str]) -> Cluster:
        self.base.chmod(0o755)  # servers that drop root (Postgres, PgBouncer) reach their dirs
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"10.{self.subnet}.0.1/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        (self.base / "hosts").mkdir()
        for number, name in enumerate(names, start=2):
            self._add(name, f"10.{self.subnet}.0.{number}")
        return self

    def _add(self, name: str, address: str) -> None:
        namespace, veth = f"{self.tag}-{name}", f"{self.tag}{name}"[:15]
        _ip("netns", "add", namespace)
        _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", namespace)
        _ip("link", "set", veth, "master", self.bridge, "up")
        for args in (
            ["addr", "add", f"{address}/24", "dev", "eth0"],
            ["link", "set", "eth0", "up"],
            ["link", "set", "lo", "up"],
        ):
            _ip("netns", "exec", namespace, "ip", *args)
        root = self.base / "hosts" / name
        root.mkdir()
        self.hosts[name] = host = Host(namespace, address, root, veth)
        host.boot()

    def remove(self) -> None:
        """Every namespace, link and directory made, once every process of the hosts is
        gone (a namespace lives on while one runs); safe after a partial create."""
        for host in self.hosts.values():
            inside = subprocess.run(
                ["ip", "netns", "pids", host.name], capture_output=True, text=True
            )
            for pid in inside.stdout.split():
                subprocess.run(["kill", "-9", pid], capture_output=True)
            if host.init is not None:
                host.init.wait(10)
            deadline = time.monotonic() + 10
            while any(_running(pid) for pid in inside.stdout.split()):
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            subprocess.run(["ip", "link", "del", host.veth], capture_output=True)
            subprocess.run(["ip", "netns", "del", host.name], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)
