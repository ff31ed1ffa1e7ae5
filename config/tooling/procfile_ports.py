"""The ports the Procfile's servers bind, checked before any of them starts.

A server that cannot bind exits at once, and the runner would restart it every 1, 2, 4...
seconds under a banner that says "Serving": so `make run` (and the runner itself) look
first, and a port in use stops everything with the variable that moves it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from dataclasses import dataclass

import psutil

from config.common.env import ConfigurationError, env_int


@dataclass(frozen=True)
class Port:
    variable: str
    default: int


# What each process type binds (web: config/gunicorn.py; ws: the Procfile's daphne line).
PORTS = {"web": Port("PORT", 8000), "ws": Port("WS_PORT", 8001)}
# How far above a port in use the suggestion looks for a free one.
SUGGEST_SPAN = range(10, 100)


def problems(names: list[str]) -> list[str]:
    """One sentence per port the named processes cannot bind on HOST (none: all free)."""
    host = os.environ.get("HOST") or "127.0.0.1"
    try:
        wanted = {
            name: (port.variable, env_int(port.variable, port.default, minimum=0))
            for name, port in PORTS.items()
            if name in names
        }
    except ConfigurationError as error:
        return [str(error)]
    found = _shared(wanted)
    for variable, number in wanted.values():
        if number == 0:  # "any free port": nothing to collide with
            continue
        reason = bind_error(host, number)
        if reason is not None:
            found.append(_sentence(host, variable, number, reason))
    return found


def _shared(wanted: dict[str, tuple[str, int]]) -> list[str]:
    by_number: dict[int, list[str]] = {}
    for variable, number in wanted.values():
        if number:
            by_number.setdefault(number, []).append(variable)
    return [
        f"{' and '.join(variables)} are both {number}: give each its own port"
        for number, variables in by_number.items()
        if len(variables) > 1
    ]


def bind_error(host: str, port: int) -> int | None:
    """The errno a server binding host:port would get, or None when it can bind.
    SO_REUSEADDR as gunicorn and daphne set it, so a closed connection still in
    TIME_WAIT does not count as in use."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return errno.EADDRNOTAVAIL
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                return error.errno
    return None


def _sentence(host: str, variable: str, port: int, reason: int) -> str:
    if reason == errno.EADDRINUSE:
        who = holder_of(port) or "another program"
        return (
            f"port {port} ({variable}) is in use by {who}: stop it, or choose another "
            f"port, e.g. `{variable}={free_port_above(host, port)} make run`"
        )
    if reason == errno.EACCES:
        return (
            f"port {port} ({variable}) needs privileges this user does not have: "
            f"choose a port above 1023, e.g. `{variable}={port + 8000} make run`"
        )
    return (
        f"cannot bind {host}:{port} ({variable}): {os.strerror(reason or errno.EINVAL)} "
        "(HOST must be an address of this machine)"
    )


def holder_of(port: int) -> str | None:
    """The program listening on the port, as "gunicorn (pid 123)", when this user may see
    it (other users' sockets are hidden from an unprivileged one)."""
    with contextlib.suppress(psutil.Error, OSError):
        for connection in psutil.net_connections(kind="tcp"):
            listening = connection.status == psutil.CONN_LISTEN
            # laddr is an (ip, port) pair, or () for a socket not bound yet.
            if listening and getattr(connection.laddr, "port", None) == port and connection.pid:
                return f"{psutil.Process(connection.pid).name()} (pid {connection.pid})"
    return None


def free_port_above(host: str, port: int) -> int:
    for step in SUGGEST_SPAN:
        candidate = port + step
        if candidate < 65536 and bind_error(host, candidate) is None:
            return candidate
    return port + SUGGEST_SPAN.start
