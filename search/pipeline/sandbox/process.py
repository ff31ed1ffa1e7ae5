"""Read PDFs in a child process, bounded in wall-clock time, CPU time and memory.

A decompression bomb, a parser loop or deeply nested objects can only take down the child,
never the worker that asked. Both halves of the protocol live here:

- parent: a `Sandbox` starts `python -m search.pipeline.sandbox MEMORY_MB` with subprocess
  (a fresh interpreter: the parent is a threaded Dramatiq worker, and forking a threaded
  process is unsafe), sends it one request at a time (a JSON line on its stdin) and waits
  for the answer until the document's deadline. Past it, or when the child breaks, it kills
  the child's process group and the child itself, always reaps it, and turns how the child
  ended into our errors. search/pipeline/sandbox/pool.py keeps a few started, ready for the next
  document;
- child: `main()` confines itself (search/pipeline/sandbox/confine.py) before it imports the reader,
  says it is ready, then answers each request with one length-prefixed JSON `Payload`, on a
  private copy of its stdout, until its stdin closes (the worker is done with it, or gone).
  While it reads, it tells how many pages it has read in small `progress` frames before the
  answer: the page count as soon as it is known, then at most every PROGRESS_SECONDS.
"""

import contextlib
import json
import logging
import math
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import BinaryIO, cast

import psutil

from search import file_types
from search.pipeline.errors import (
    TooComplex,
    TransientError,
)
from search.pipeline.page import OcrOrder, OnPages, Reading
from search.pipeline.sandbox.confine import make_undumpable
from search.pipeline.sandbox.endings import (
    Ending,
    Payload,
    failure,
    picture_or_error,
    reading_or_error,
)

log = logging.getLogger(__name__)

# What the child runs: the package, through its __main__.py, which calls main() below.
CHILD_MODULE = "search.pipeline.sandbox"
# The directory that holds the `search` package, for the child's imports (this file is
# search/pipeline/sandbox/process.py).
PROJECT_ROOT = str(Path(__file__).resolve().parents[3])
# The child reads INGEST_EXTRACTOR (search/pipeline/reader.py) from its environment, and
# the OCR engine's languages and files (search/pipeline/ocr.py).
EXTRACTOR_ENV = "INGEST_EXTRACTOR"
OCR_LANGUAGES_ENV = "INGEST_OCR_LANGUAGES"
OCR_TESSDATA_ENV = "INGEST_OCR_TESSDATA"

# Text the child may hand back, as JSON. A real document of INGEST_MAX_PAGES pages comes
# nowhere near; more means the parent would spend a worker's memory on a hostile file.
MAX_OUTPUT_BYTES = 64 * 1024 * 1024
# The child's own limits only matter when the parent is gone and cannot enforce deadlines.
CPU_GRACE_SECONDS = 5
# Python plus the reader's imports take about 0.15 s; this much means something is wrong.
STARTUP_SECONDS = 60
# A document's budget is CPU time; a reader starved by a busy machine is given up on at this
# many times the budget in wall-clock time (1.5 x 300 s leaves room in a 600 s job).
WALL_CLOCK_FACTOR = 1.5
# How often the parent looks at the CPU time of a reader that has not answered yet.
CPU_CHECK_SECONDS = 0.1
FRAME = struct.Struct(">Q")  # each answer's length in bytes, then the JSON
# How much of the child's stderr is kept to explain a crash.
STDERR_TAIL_BYTES = 4096
# The child tells the pages it has read at most this often (a frame of some 40 bytes).
PROGRESS_SECONDS = 0.25
# What the child may still read once its walls are up: the project's own packages it may
# import late (never the project root itself, which holds the data directory), and the
# system's shared libraries.
CODE_PACKAGES = ("search", "config")
SHARED_LIBRARIES = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib")
LOST_WITHOUT_LANDLOCK = (
    "this kernel has no Landlock: the PDF reader can open any file its user can read "
    "(the data directory, other tenants' stored files); sockets, signals, ptrace and new "
    "processes are still refused"
)


class _DeadlinePassed(Exception):
    pass


class _OutOfCpu(Exception):
    pass


# --------------------------------------------------------------------------- parent


class Sandbox:
    """One extractor child process, reading one document at a time (not thread-safe).

    Starting one returns at once; the child gets ready (imports its reader) meanwhile.
    """

    def __init__(
        self,
        *,
        memory_mb: int,
        extractor: str = "pdfminer",
        ocr_languages: str = "",
        tessdata: str = "",
    ) -> None:
        self.extractor = extractor
        self.ocr_languages = ocr_languages  # "": a child that reads no page by OCR
        self._pdfium = extractor == "pdfium"  # PDFium reads the document at hand
        # Before any child exists: none of them can read this process's secrets in /proc.
        make_undumpable()
        self.memory_mb = memory_mb
        self.served = 0
        self.owner: int | None = None  # whose documents it has read: it reads no one else's
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        # The child's one writable directory, and the socket that hands it each document
        # as an open file: it can open no file outside what its walls allow.
        self._scratch = tempfile.mkdtemp(prefix="ingest-reader-")
        self._channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-m", CHILD_MODULE, str(memory_mb), str(theirs.fileno())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                # A file, not a pipe: however much the child writes, we keep only the tail.
                stderr=self._stderr,
                env=_child_environment(extractor, self._scratch, ocr_languages, tessdata),
                pass_fds=[theirs.fileno()],
                # Its own process group, so the kill reaches everything it could have started.
                start_new_session=True,
            )
        except BaseException:
            self._stderr.close()
            self._channel.close()
            shutil.rmtree(self._scratch, ignore_errors=True)
            raise
        finally:
            theirs.close()
        self._cpu: float | None = None  # the child's CPU seconds at its last answer
        self.walls: dict | None = None  # what the child said it could put up, once ready

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.poll() is None

    def read(
        self, path: Path, *, max_pages: int, timeout: float, on_pages: OnPages | None = None
    ) -> list[str]:
        """Each page's raw text of the PDF at `path`: `read_pages` without OCR."""
        return self.read_pages(path, max_pages=max_pages, timeout=timeout, on_pages=on_pages).texts

    def read_pages(
        self,
        path: Path,
        *,
        max_pages: int,
        timeout: float,
        on_pages: OnPages | None = None,
        ocr: OcrOrder | None = None,
        on_scans: OnPages | None = None,
        structure: bool = False,
    ) -> Reading:
        """Each page's raw text of the PDF at `path` (an absolute path); with `structure`,
        its blocks (search/pipeline/layout, read through PDFium); with `ocr`,
        the pages that need OCR (and, in its "read" mode, what OCR read on them: only a
        child started with `ocr_languages` can). `on_pages` hears of the pages read while
        the child reads, `on_scans` of the pages read by OCR (page.OnPages; not every page
        is told).

        Raises the reader's permanent errors (NotAPdf, Encrypted, Corrupt, TooManyPages),
        TooComplex past `memory_mb` or past `timeout` seconds of CPU time (the file's own
        weight, whatever the machine's load), ExtractTimeout (transient) when the reader had not
        got that much CPU time in WALL_CLOCK_FACTOR x `timeout` seconds (a busy machine),
        and TransientError "extractor_crashed" when the child died any other way. After
        anything but pages, the child is stopped: the next document gets a fresh one,
        also when `on_pages` raises (its error is raised here).
        """
        try:
            self._wait_until_ready()
            with open(path, "rb") as document:  # handed over open: the child cannot open it
                code = type_of(document, path)
                socket.send_fds(self._channel, [b"d"], [document.fileno()])
            self._pdfium = structure or self.extractor == "pdfium"
            self._send(
                type=code,
                max_pages=max_pages,
                timeout=timeout,
                ocr=ocr.as_request() if ocr else None,
                structure=structure,
            )
            deadline = time.monotonic() + WALL_CLOCK_FACTOR * timeout
            cpu_limit = (self._cpu or 0.0) + timeout
            page = _PageClock()
            payload = self._receive(deadline, cpu_limit)
            while "progress" in payload:
                done, total = _pages_read(payload, max_pages)
                scanning = bool(payload["progress"].get("ocr"))
                if scanning and ocr is not None:
                    page.starts(done, total, self._cpu_seconds() + ocr.page_seconds)
                told = on_scans if scanning else on_pages
                if told is not None:
                    told(done, total)
                payload = self._receive(deadline, min(cpu_limit, page.cpu_limit))
            self.served += 1
            self._cpu = payload.get("cpu", self._cpu)
            return reading_or_error(payload, memory_mb=self.memory_mb)
        except _OutOfCpu:
            if page.cpu_limit < cpu_limit and ocr is not None:  # the page's budget, not the file's
                self.stop()
                raise TooComplex(
                    f"Page {page.index + 1} needs more than {ocr.page_seconds:g} s of CPU time "
                    "to read by OCR (INGEST_OCR_PAGE_SECONDS)."
                ) from None
            raise self._ended(timeout=timeout, killed_for="cpu") from None
        except _DeadlinePassed:
            raise self._ended(timeout=timeout, killed_for="wall") from None
        except (EOFError, OSError, ValueError):  # a closed pipe, a garbled answer
            raise self._ended(timeout=timeout, killed_for=None) from None
        except BaseException:  # an error answer, or this thread interrupted (a time limit)
            self.stop()
            raise

    def render_page(self, path: Path, *, number: int, width: int, timeout: float) -> bytes:
        """Page `number` (1-based) of the PDF at `path` (an absolute path) as a PNG `width`
        pixels wide (search/pipeline/render.py), drawn within `timeout` seconds of CPU
        time. Raises NoSuchPage (with the file's page count) and Corrupt, and as
        read_pages: TooComplex, ExtractTimeout, TransientError "extractor_crashed". After
        anything but a picture, the child is stopped."""
        try:
            self._wait_until_ready()
            with open(path, "rb") as document:  # handed over open: the child cannot open it
                code = type_of(document, path)
                socket.send_fds(self._channel, [b"d"], [document.fileno()])
            self._pdfium = True
            self._send(type=code, render={"page": number, "width": width}, timeout=timeout)
            deadline = time.monotonic() + WALL_CLOCK_FACTOR * timeout
            payload = self._receive(deadline, (self._cpu or 0.0) + timeout)
            self.served += 1
            self._cpu = payload.get("cpu", self._cpu)
            return picture_or_error(payload)
        except _OutOfCpu:
            raise self._ended(timeout=timeout, killed_for="cpu") from None
        except _DeadlinePassed:
            raise self._ended(timeout=timeout, killed_for="wall") from None
        except (EOFError, OSError, ValueError):  # a closed pipe, a garbled answer
            raise self._ended(timeout=timeout, killed_for=None) from None
        except BaseException:  # an error answer, or this thread interrupted
            self.stop()
            raise

    def _wait_until_ready(self) -> None:
        if self._cpu is not None:
            return
        try:
            ready = self._receive(time.monotonic() + STARTUP_SECONDS)
            self._cpu = ready.get("cpu", 0.0)
            self.walls = ready.get("walls") or {}
            _say_what_is_lost(self.walls)
        except _DeadlinePassed:
            self.stop()
            raise TransientError(
                f"The PDF reader did not start within {STARTUP_SECONDS} s.",
                code="extractor_crashed",
            ) from None

    def stop(self) -> float:
        """Kill the child (its process group, and by pid) and reap it. Returns the CPU
        seconds it used in all (0 if it was reaped already). Safe to call twice."""
        cpu = 0.0
        if self._process.returncode is None:
            cpu = self._reap(grace=0)
        for pipe in (self._process.stdin, self._process.stdout, self._stderr, self._channel):
            with contextlib.suppress(OSError):  # a request the dead child never read
                if pipe is not None:
                    pipe.close()
        shutil.rmtree(self._scratch, ignore_errors=True)
        return cpu

    def _send(self, **request: object) -> None:
        # The child's own wall-clock deadline, from this side's factor: the one a test on
        # a busy machine stretches (tests/search/conftest.py, patient_wall_clock) is the
        # parent's, and a child ending itself first would read as a crash.
        timeout = request.get("timeout")
        if isinstance(timeout, int | float):
            request["wall"] = WALL_CLOCK_FACTOR * timeout + CPU_GRACE_SECONDS
        stdin = cast(BinaryIO, self._process.stdin)
        stdin.write(json.dumps(request).encode() + b"\n")
        stdin.flush()

    def _receive(self, deadline: float, cpu_limit: float = math.inf) -> Payload:
        (size,) = FRAME.unpack(self._read_exactly(FRAME.size, deadline, cpu_limit))
        if size > MAX_OUTPUT_BYTES + 4096:
            raise ValueError(f"an answer of {size} bytes")
        # The child's own JSON: _encode below writes a Payload.
        return cast(Payload, json.loads(self._read_exactly(size, deadline, cpu_limit)))

    def _read_exactly(self, size: int, deadline: float, cpu_limit: float) -> bytes:
        stdout = cast(BinaryIO, self._process.stdout)
        received = bytearray()
        while len(received) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _DeadlinePassed
            if not _readable(stdout.fileno(), min(remaining, CPU_CHECK_SECONDS)):
                if self._cpu_seconds() >= cpu_limit:
                    raise _OutOfCpu
                continue
            chunk = os.read(stdout.fileno(), min(size - len(received), 1 << 20))
            if not chunk:
                raise EOFError
            received += chunk
        return bytes(received)

    def _cpu_seconds(self) -> float:
        """The child's CPU time so far, as the kernel counts it (0 once it is gone)."""
        try:
            times = psutil.Process(self._process.pid).cpu_times()
        except psutil.Error:
            return 0.0
        return times.user + times.system

    def _ended(self, *, timeout: float, killed_for: str | None) -> Exception:
        # A child that closed its stdout is likely exiting: its own exit status says why.
        cpu = self._reap(grace=0 if killed_for else 1.0) - (self._cpu or 0.0)
        ending = Ending(
            returncode=self._process.returncode,
            killed_for=killed_for,
            cpu=max(cpu, 0.0),
            stderr_tail=_tail(self._stderr),
        )
        self.stop()
        wall = WALL_CLOCK_FACTOR * timeout
        return failure(
            ending,
            timeout=timeout,
            wall=wall,
            memory_mb=self.memory_mb,
            aborts_on_oom=self._pdfium or bool(self.ocr_languages),
        )

    def _reap(self, *, grace: float) -> float:
        pid, until = self._process.pid, time.monotonic() + grace
        while time.monotonic() < until and not _exited(pid):
            time.sleep(0.01)
        # Not reaped yet, so the pid and its group still belong to our child.
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(ProcessLookupError):
                kill(pid, signal.SIGKILL)
        try:
            _, status, usage = os.wait4(pid, 0)
        except ChildProcessError:  # reaped elsewhere: nothing left to learn
            self._process.returncode = -signal.SIGKILL
            return 0.0
        self._process.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_utime + usage.ru_stime


class _PageClock:
    """The CPU time the page OCR is reading may take: the child tells each page before it
    reads it (unthrottled), and the parent holds it to INGEST_OCR_PAGE_SECONDS of CPU time
    as the kernel counts it, however busy the machine (wall-clock time is the file's
    deadline alone)."""

    def __init__(self) -> None:
        self.index = 0
        self.cpu_limit = math.inf

    def starts(self, index: int, total: int, cpu_limit: float) -> None:
        self.index = index
        self.cpu_limit = cpu_limit if index < total else math.inf  # the last page is done


def type_of(document: BinaryIO, path: Path) -> str:
    """The code of the file's type (search/file_types.py), told from its first bytes and
    its name (which only tells Markdown from plain text); "pdf" for bytes of no type read
    here, or text named as a PDF is (as the front door refuses them), which the PDF
    reader then refuses with its own reason. Reads with pread: the child gets the file
    at its start."""
    found = file_types.detect(os.pread(document.fileno(), file_types.HEAD_BYTES, 0), name=path.name)
    if not isinstance(found, file_types.FileType):
        return file_types.PDF.code
    if file_types.mislabelled(found, path.name):
        return file_types.PDF.code
    return found.code


def _pages_read(payload: Payload, max_pages: int) -> tuple[int, int]:
    """A progress frame's (pages read, pages in all), checked: the child parses untrusted
    bytes, so a frame that is not two sensible counts is a garbled answer (ValueError)."""
    progress = payload["progress"]
    done, total = progress.get("done"), progress.get("total")
    if not (isinstance(done, int) and isinstance(total, int) and 0 <= done <= total <= max_pages):
        raise ValueError(f"a progress frame of {str(progress)[:100]}")
    return done, total


def _readable(fd: int, seconds: float) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    # Readable also means closed (POLLHUP): the read that follows returns b"".
    return bool(poller.poll(max(1, math.ceil(seconds * 1000))))


def _exited(pid: int) -> bool:
    # WNOWAIT: look without reaping, so the exit status and CPU time are still there.
    with contextlib.suppress(ChildProcessError):
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    return True


_warned: set[str] = set()


def _say_what_is_lost(walls: dict) -> None:
    """Once per process: a plain warning when the kernel let the child put up fewer walls."""
    lost = walls.get("lost")
    if lost and lost not in _warned:
        _warned.add(lost)
        log.warning("extractor sandbox: %s", lost)


def _child_environment(
    extractor: str, scratch: str, ocr_languages: str = "", tessdata: str = ""
) -> dict[str, str]:
    # The child parses untrusted bytes: it gets the import path, its scratch directory and
    # no credentials; an OCR child, its engine's languages and files. Every child one
    # thread: numpy (the OCR page's image, and openpyxl imports it) starts a pool of them
    # otherwise, which the child may not (seccomp).
    environment = {
        "PYTHONPATH": PROJECT_ROOT,
        "PATH": os.defpath,
        "TMPDIR": scratch,
        EXTRACTOR_ENV: extractor,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    if ocr_languages:
        environment |= {
            OCR_LANGUAGES_ENV: ocr_languages,
            OCR_TESSDATA_ENV: tessdata,
            "OMP_THREAD_LIMIT": "1",
        }
    return environment


def _tail(stderr: BinaryIO) -> str:
    size = os.fstat(stderr.fileno()).st_size
    return os.pread(stderr.fileno(), STDERR_TAIL_BYTES, max(0, size - STDERR_TAIL_BYTES)).decode(
        "utf-8", "replace"
    )


def read_in_sandbox(
    path: str | os.PathLike[str],
    *,
    max_pages: int,
    timeout: float,
    memory_mb: int,
    extractor: str = "pdfminer",
) -> list[str]:
    """Each page's raw text, read in a child process started for this document alone (what
    search/pipeline/sandbox/pool.py does with a warm one). Raises as Sandbox.read, and OSError when
    `path` cannot be found, before anything is started."""
    resolved = Path(path).resolve(strict=True)
    sandbox = Sandbox(memory_mb=memory_mb, extractor=extractor)
    try:
        return sandbox.read(resolved, max_pages=max_pages, timeout=timeout)
    finally:
        sandbox.stop()
