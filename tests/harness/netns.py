"""Test hosts on one machine: network namespaces on a bridge, each with a disk of its own.

`Cluster` makes a bridge and, per host, a network namespace joined to it by a veth pair,
with an address of a private /24 the test picks. `Host.popen` runs a command in the host's
namespace and in a mount namespace of its own, where the host's directory is its working
directory and the cluster's other directories are hidden (a tmpfs over their parent): no
two hosts share a working directory, and a path of another host does not exist there.
`Host.cut` and `Host.mend` take its link down and up, as a network cut would. Everything
is removed by `Cluster.remove`. Needs root and iproute2 (`ip netns`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


def unavailable() -> str | None:
    """Why namespaces cannot be made here, or None when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns); run the suite as root to include this"
    if shutil.which("ip") is None or shutil.which("unshare") is None:
        return "iproute2's ip and util-linux's unshare are needed for network namespaces"
    return None


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@dataclass
class Host:
    name: str  # the namespace's name
    address: str
    root: Path  # its own directory (its working directory inside)
    veth: str  # the bridge's end of its link

    def command(self, argv: list[str]) -> list[str]:
        """`argv` run in this host: its network namespace, a mount namespace where every
        other host's directory is hidden, and its own directory as the working one."""
        hosts = self.root.parent
        script = (
            f"mount --bind {shlex.quote(str(self.root))} /mnt && "
            f"mount -t tmpfs -o size=1m hidden {shlex.quote(str(hosts))} && "
            f"mkdir -p {shlex.quote(str(self.root))} && "
            f"mount --move /mnt {shlex.quote(str(self.root))} && "
            f"cd {shlex.quote(str(self.root))} && exec {shlex.join(argv)}"
        )
        return [
            "ip",
            "netns",
            "exec",
            self.name,
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
        ]

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
        self.hosts[name] = Host(namespace, address, root, veth)

    def remove(self) -> None:
        """Every namespace, link and directory made; safe after a partial create."""
        for host in self.hosts.values():
            inside = subprocess.run(
                ["ip", "netns", "pids", host.name], capture_output=True, text=True
            )
            for pid in inside.stdout.split():
                subprocess.run(["kill", "-9", pid], capture_output=True)
            subprocess.run(["ip", "netns", "del", host.name], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
        shutil.rmtree(self.base, ignore_errors=True)
