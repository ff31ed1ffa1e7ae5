"""Read a PDF in a child process, bounded in wall-clock time, CPU time and memory.

A decompression bomb, a parser loop or deeply nested objects can only take down the child,
never the worker that asked. Both halves of the protocol live here:

- parent: `read_in_sandbox()` starts `python -m search.pipeline.sandbox` with subprocess
  (a fresh interpreter: the parent is a threaded Dramatiq worker, and forking a threaded
  process is unsafe), kills the child's process group at the deadline, always reaps it,
  and turns how the child ended into our errors;
- child: `main()` limits its own address space and CPU time before it imports pdfminer,
  reads the file named in argv, and writes one JSON `Payload` to stdout.
"""

import contextlib
import json
import logging
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypedDict, cast

from search.pipeline.errors import (
    Corrupt,
    Encrypted,
    NotAPdf,
    PermanentError,
    Timeout,
    TooComplex,
    TooManyPages,
    TransientError,
)

CHILD_MODULE = "search.pipeline.sandbox"
# The directory that holds the `search` package, for the child's imports.
PROJECT_ROOT = str(Path(__file__).resolve().parents[2])

# Text the child may hand back, as JSON. A real document of INGEST_MAX_PAGES pages comes
# nowhere near; more means the parent would spend a worker's memory on a hostile file.
MAX_OUTPUT_BYTES = 64 * 1024 * 1024
# The CPU limit only matters when the parent is gone and cannot enforce the deadline.
CPU_GRACE_SECONDS = 5
# How much of the child's stderr is kept to explain a crash.
STDERR_TAIL_BYTES = 4096

# The errors a child may report: known-bad input, so they are permanent.
PERMANENT_ERRORS: dict[str, type[PermanentError]] = {
    error.code: error for error in (NotAPdf, Encrypted, Corrupt, TooManyPages, TooComplex)
}


class ErrorPayload(TypedDict):
    code: str
    detail: str


class Payload(TypedDict, total=False):
    """What the child writes to stdout: `pages` (each page's raw text) or `error`."""

    pages: list[str]
    error: ErrorPayload


# --------------------------------------------------------------------------- parent


@dataclass(frozen=True)
class _Ending:
    returncode: int | None  # None: killed at the deadline
    stdout: bytes
    stderr_tail: str


def read_in_sandbox(
    path: str | os.PathLike[str], *, max_pages: int, timeout: float, memory_mb: int
) -> list[str]:
    """Each page's raw text, read by pdfminer in a child process that cannot outlive this call.

    Raises Timeout (transient) past `timeout` seconds, TooComplex when reading needs more
    than `memory_mb` MB, the reader's own NotAPdf / Encrypted / Corrupt / TooManyPages,
    TransientError "extractor_crashed" when the child dies any other way, and OSError when
    `path` cannot be found. Blocks the calling thread only; the child is always reaped.
    """
    command = [
        sys.executable,
        "-P",  # the worker's current directory must not shadow the child's imports
        "-m",
        CHILD_MODULE,
        str(Path(path).resolve(strict=True)),
        str(max_pages),
        str(memory_mb),
        str(math.ceil(timeout) + CPU_GRACE_SECONDS),
    ]
    ending = _run(command, timeout)
    return _result(ending, timeout=timeout, memory_mb=memory_mb)


def _run(command: list[str], timeout: float) -> _Ending:
    with (
        tempfile.TemporaryFile() as stderr,
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            # A file, not a pipe: however much the child writes, we keep only the tail.
            stderr=stderr,
            env=_child_environment(),
            # Its own process group, so the deadline kills everything it started.
            start_new_session=True,
        ) as child,
    ):
        stdout, timed_out = b"", False
        try:
            stdout, _ = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            # Also when something interrupts this thread (e.g. Dramatiq's time limit).
            _kill_and_reap(child)
        return _Ending(None if timed_out else child.returncode, stdout, _tail(stderr))


def _child_environment() -> dict[str, str]:
    # The child parses untrusted bytes: it gets the import path and no credentials.
    return {"PYTHONPATH": PROJECT_ROOT, "PATH": os.defpath}


def _kill_and_reap(child: subprocess.Popen[bytes]) -> None:
    if child.returncode is None:
        # Not reaped yet, so the pid and its group still belong to our child.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
    child.wait()


def _tail(stderr: IO[bytes]) -> str:
    size = stderr.seek(0, os.SEEK_END)
    stderr.seek(max(0, size - STDERR_TAIL_BYTES))
    return stderr.read().decode("utf-8", "replace")


def _result(ending: _Ending, *, timeout: float, memory_mb: int) -> list[str]:
    if ending.returncode is None or ending.returncode == -signal.SIGXCPU:
        raise Timeout(f"Reading the PDF took longer than {timeout:g} s.")
    if ending.returncode == 0:
        payload = _decode(ending.stdout)
        if "pages" in payload:
            return payload["pages"]
        error = payload.get("error")
        if error and error.get("code") in PERMANENT_ERRORS:
            raise PERMANENT_ERRORS[error["code"]](error["detail"])
    if "MemoryError" in ending.stderr_tail:
        raise TooComplex(memory_detail(memory_mb))
    raise TransientError(
        f"The PDF reader stopped unexpectedly ({_describe(ending.returncode)}). "
        f"{_last_line(ending.stderr_tail)}".strip(),
        code="extractor_crashed",
    )


def _decode(stdout: bytes) -> Payload:
    try:
        payload = json.loads(stdout)
    except ValueError:
        return {}
    # The child's own JSON: main() below writes a Payload.
    return cast(Payload, payload) if isinstance(payload, dict) else {}


def _describe(returncode: int) -> str:
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    return f"exit status {returncode}"


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def memory_detail(memory_mb: int) -> str:
    return (
        f"Reading the PDF needs more than {memory_mb} MB of memory; it may be a decompression bomb."
    )


# --------------------------------------------------------------------------- child


def main(argv: list[str]) -> int:
    """The child: `python -m search.pipeline.sandbox PATH MAX_PAGES MEMORY_MB CPU_SECONDS`.

    Exits 0 having written one Payload for any input, good or bad; anything else (a
    traceback, a signal) means the reader itself broke.
    """
    path, max_pages, memory_mb, cpu_seconds = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
    _limit_resources(memory_mb=memory_mb, cpu_seconds=cpu_seconds)
    body = _encode(_read(path, max_pages=max_pages, memory_mb=memory_mb), memory_mb=memory_mb)
    sys.stdout.buffer.write(body)
    sys.stdout.buffer.flush()
    return 0


def _limit_resources(*, memory_mb: int, cpu_seconds: int) -> None:
    memory = memory_mb * 1024 * 1024
    _lower(resource.RLIMIT_AS, memory, memory)
    # SIGXCPU at the soft limit, SIGKILL one second later should that be ignored.
    _lower(resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1)
    # A crash must not write a core file of up to memory_mb into the worker's directory.
    _lower(resource.RLIMIT_CORE, 0, 0)


def _lower(limit: int, soft: int, hard: int) -> None:
    # A process may lower its hard limit but never raise it: keep a stricter one we inherit.
    _, inherited = resource.getrlimit(limit)
    if inherited != resource.RLIM_INFINITY:
        soft, hard = min(soft, inherited), min(hard, inherited)
    resource.setrlimit(limit, (soft, hard))


def _read(path: str, *, max_pages: int, memory_mb: int) -> Payload:
    try:
        # Imported under the limits: pdfminer is never loaded in a process without them.
        from search.pipeline.reader import read_pdf

        # Collected by the reader as evidence of damage, not printed.
        logging.getLogger("pdfminer").propagate = False
        with open(path, "rb") as fp, contextlib.redirect_stdout(sys.stderr):
            return {"pages": read_pdf(fp, max_pages=max_pages)}
    except PermanentError as exc:
        return {"error": {"code": exc.code, "detail": exc.detail}}
    except MemoryError:
        pass  # answered below, once the frames that held the memory are gone
    return {"error": {"code": TooComplex.code, "detail": memory_detail(memory_mb)}}


def _encode(payload: Payload, *, memory_mb: int) -> bytes:
    try:
        # ASCII escapes keep lone surrogates (from broken font maps) valid JSON.
        body = json.dumps(payload, ensure_ascii=True).encode("ascii")
    except MemoryError:
        return _too_complex(memory_detail(memory_mb))
    if len(body) > MAX_OUTPUT_BYTES:
        return _too_complex(f"The PDF's text is larger than {MAX_OUTPUT_BYTES // 2**20} MB.")
    return body


def _too_complex(detail: str) -> bytes:
    return json.dumps({"error": {"code": TooComplex.code, "detail": detail}}).encode()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
