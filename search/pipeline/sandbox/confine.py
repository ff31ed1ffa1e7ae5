"""The walls around the extractor child, and the one around the worker that starts it.

The child (search/pipeline/sandbox/process.py) parses untrusted bytes. Before it imports any PDF
library, `confine_child()` bounds what it can take (address space, CPU time, open files, the
size of any file it writes) and what it can start: no process, no thread, no other program,
so nothing can leave its process group and outlive the kill. RLIMIT_NPROC 0 says so for a
worker's ordinary user; the kernel never applies it to root, so a seccomp filter also
refuses clone, fork and exec (on x86-64 and arm64), and with them every call that opens a
socket, signals or traces another process, or reads its memory (REFUSED_CALLS). What files
it may open is Landlock's part, put up once its imports are read (sandbox.put_up_walls).
And the child drops every capability, for good (no_new_privs: an exec could not give them
back), so a worker running as root does not hand its child the right to read any
process's memory.

`make_undumpable()` is for the worker: a process that is not dumpable has its
/proc/<pid>/environ, mem, maps and fd/ owned by root, so a child of the same user (without
capabilities) cannot read the worker's credentials there. The child's own environment holds
none (sandbox._child_environment).
"""

import ctypes
import errno
import functools
import math
import os
import platform
import resource
import sys

from config.common.priority import share_nice_with_session

# The child holds stdin, stdout, stderr, its answer pipe and the PDF, plus a module file
# now and then while it imports.
OPEN_FILES = 32
# The only file the child writes is its stderr (kept for the crash report, which reads
# the last 4 KB); more than this is no longer a PDF library's warnings.
WRITTEN_BYTES = 16 * 1024 * 1024

# <linux/prctl.h> and <linux/capability.h>
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
CAPABILITY_VERSION_3 = 0x20080522

# <linux/seccomp.h>, <linux/filter.h>, <linux/audit.h>: the architecture a system call
# comes in with, and the calls that start a thread, a process or another program.
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
X32_SYSCALL_BIT = 0x40000000
# The calls the child may never make, by architecture (its audit id, then the numbers):
# - start anything: clone, fork, vfork, execve, execveat, clone3 (arm64 has no fork, vfork);
# - reach a network or another process's socket: socket, socketpair, io_uring_setup (which
#   can open sockets of its own);
# - touch another process: rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal,
#   pidfd_open, ptrace, process_vm_readv, process_vm_writev.
# And the calls it may make only at itself (the pid its first argument names): kill, tkill,
# tgkill, with which abort() ends a process (a C library out of memory calls it).
REFUSED_CALLS = {
    "x86_64": (
        0xC000003E,
        (56, 57, 58, 59, 322, 435, 41, 53, 425, 129, 297, 424, 434, 101, 310, 311),
        (62, 200, 234),
    ),
    "aarch64": (
        0xC00000B7,
        (220, 221, 281, 435, 198, 199, 425, 138, 240, 424, 434, 117, 270, 271),
        (129, 130, 131),
    ),
}


def confine_child(*, memory_mb: int, cpu_seconds: int) -> None:
    """Limit this process before it imports a PDF library. Raises OSError if it cannot."""
    memory = memory_mb * 1024 * 1024
    _lower(resource.RLIMIT_AS, memory, memory)
    # SIGXCPU at the soft limit; limit_cpu() moves it along for each document.
    _lower(resource.RLIMIT_CPU, cpu_seconds, resource.RLIM_INFINITY)
    # A crash must not write a core file of up to memory_mb into the worker's directory.
    _lower(resource.RLIMIT_CORE, 0, 0)
    _lower(resource.RLIMIT_NPROC, 0, 0)
    _lower(resource.RLIMIT_NOFILE, OPEN_FILES, OPEN_FILES)
    _lower(resource.RLIMIT_FSIZE, WRITTEN_BYTES, WRITTEN_BYTES)
    if sys.platform == "linux":
        if os.getsid(0) == os.getpid():  # its own session: give it the worker's priority
            share_nice_with_session()
        _drop_capabilities()  # sets no_new_privs, which a filter needs too
        _refuse_calls()


def limit_cpu(seconds: float) -> None:
    """SIGXCPU (which ends the process) once it has used `seconds` more CPU time, so a
    child whose worker is gone still stops; whole seconds, rounded up."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    wanted = math.ceil(cpu_seconds() + seconds)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (wanted, hard))


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def make_undumpable() -> None:
    """Keep this process's /proc entries from other processes of its user (Linux only)."""
    if sys.platform == "linux":
        _prctl(PR_SET_DUMPABLE, 0)


def _lower(limit: int, soft: int, hard: int) -> None:
    # A process may lower its hard limit but never raise it: keep a stricter one we inherit.
    _, inherited = resource.getrlimit(limit)
    if inherited != resource.RLIM_INFINITY:
        hard = inherited if hard == resource.RLIM_INFINITY else min(hard, inherited)
        soft = min(soft, hard)
    resource.setrlimit(limit, (soft, hard))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in ("effective", "permitted", "inheritable")]


def _drop_capabilities() -> None:
    # First no_new_privs: without it, exec would hand a root process its capabilities back.
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    header = _CapHeader(CAPABILITY_VERSION_3, 0)
    empty = (_CapData * 2)()  # version 3 takes two 32-bit words per set; all zero
    if _libc().capset(ctypes.byref(header), empty) != 0:
        _raise_errno("capset")


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


# Classic BPF: load a word of the call's data, compare and jump, return.
LOAD_WORD, JUMP_IF_EQUAL, JUMP_IF_AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06
ARCH_OFFSET, NUMBER_OFFSET, FIRST_ARGUMENT_OFFSET = 4, 0, 16  # little-endian: its low word


def _refuse_calls() -> None:
    """EPERM for REFUSED_CALLS from now on; every other call as before."""
    if platform.machine() not in REFUSED_CALLS:
        return  # RLIMIT_NPROC still holds for users other than root; Landlock the rest
    arch, numbers, at_itself = REFUSED_CALLS[platform.machine()]
    refuse = (RETURN, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM)
    allow = (RETURN, 0, 0, SECCOMP_RET_ALLOW)
    program = [(LOAD_WORD, 0, 0, ARCH_OFFSET), (JUMP_IF_EQUAL, 1, 0, arch), refuse]
    program += [(LOAD_WORD, 0, 0, NUMBER_OFFSET), (JUMP_IF_AT_LEAST, 0, 1, X32_SYSCALL_BIT)]
    program.append(refuse)
    for number in numbers:
        program += [(JUMP_IF_EQUAL, 0, 1, number), refuse]
    me = os.getpid()  # a single-threaded child: its one thread's id is its pid too
    for number in at_itself:
        # Not this call: past the next four. Else its first argument's low word (the
        # kernel reads a pid as an int) must be this process.
        program += [(JUMP_IF_EQUAL, 0, 4, number), (LOAD_WORD, 0, 0, FIRST_ARGUMENT_OFFSET)]
        program += [(JUMP_IF_EQUAL, 0, 1, me), allow, refuse]
    program.append(allow)
    filters = (_SockFilter * len(program))(*(_SockFilter(*line) for line in program))
    fprog = _SockFprog(len(program), filters)
    if _libc().prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        _raise_errno("prctl(PR_SET_SECCOMP)")


def _prctl(option: int, value: int) -> None:
    if _libc().prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        _raise_errno("prctl")


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _raise_errno(call: str) -> None:
    errno = ctypes.get_errno()
    raise OSError(errno, f"{call} failed")
