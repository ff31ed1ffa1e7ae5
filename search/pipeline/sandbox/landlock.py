"""Landlock: what files the extractor child may still open once it has read its imports.

Landlock is the kernel's unprivileged sandbox (Linux 5.13 and later; this code uses what
the running kernel's ABI offers). A process that restricts itself keeps every file it
already has open (its pipes, its stderr, a document handed to it as a descriptor) and may
open nothing else but what the rules allow, for good, and so may every process it could
start. On top of files, the same domain:
- may not ptrace, or read the /proc memory and environment of, any process outside it
  (every ABI);
- makes no TCP connection and binds no TCP port (ABI 4, Linux 6.7);
- sends no signal and reaches no abstract Unix socket outside it (ABI 6, Linux 6.12).

`restrict(readable, writable)` applies it and returns the ABI in force (0 when the kernel
has no Landlock: then nothing is restricted, and the caller says so in its logs).
"""

import ctypes
import os
from collections.abc import Iterable

from search.pipeline.sandbox.confine import _libc, _raise_errno

# <asm-generic/unistd.h>: the same numbers on x86-64 and arm64.
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1

# <linux/landlock.h>: filesystem rights, and the ABI that brought each.
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
READ_ONLY = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI version; 0 when it has none (or it is turned off)."""
    version = _libc().syscall(CREATE_RULESET, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)
    return max(0, version)


def fs_rights(version: int) -> int:
    return max(rights for since, rights in FS_RIGHTS_BY_ABI.items() if since <= version)


def restrict(readable: Iterable[str], writable: Iterable[str]) -> int:
    """From now on this process opens only files under `readable` (read, list, map) and
    `writable` (anything); paths that do not exist are left out. Needs no_new_privs.
    Returns the ABI in force, 0 when the kernel has no Landlock (nothing restricted)."""
    version = abi()
    if version == 0:
        return 0
    handled = fs_rights(version)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = ctypes.sizeof(_RulesetAttr)
    if version < 4:
        size = 8  # only the filesystem field existed
    elif version < 6:
        size = 16
    if version >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP  # and no rule allows any
    if version >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    ruleset = _libc().syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        _raise_errno("landlock_create_ruleset")
    try:
        for paths, rights in ((readable, READ_ONLY), (writable, handled)):
            for path in paths:
                _allow(ruleset, path, rights & handled)
        if _libc().syscall(RESTRICT_SELF, ruleset, 0) != 0:
            _raise_errno("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return version


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        directory = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | (1 << 14)  # a file's own
        rule = _PathBeneathAttr(allowed_access=rights, parent_fd=directory)
        if _libc().syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            _raise_errno(f"landlock_add_rule({path})")
    finally:
        os.close(directory)
