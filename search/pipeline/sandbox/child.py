"""The sandboxed child's half (search/pipeline/sandbox/process.py has the parent's):
`python -m search.pipeline.sandbox MEMORY_MB CHANNEL_FD`.

`main()` confines itself (search/pipeline/sandbox/confine.py) before it imports the
readers, says it is ready, then answers each request with one length-prefixed JSON
`Payload`, on a private copy of its stdout, until its stdin closes. Each request names the
file's type (search/file_types.py): a PDF is read by the PDF readers, an image by
images.py (its pages by OCR), any other type by its reader in search/pipeline/formats.
"""

import base64
import json
import logging
import math
import os
import signal
import socket
import sys
import sysconfig
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, BinaryIO

from search import file_types
from search.pipeline.errors import ExtractTimeout, NoSuchPage, PermanentError, TooComplex
from search.pipeline.page import OcrOrder, Scanned
from search.pipeline.sandbox import landlock
from search.pipeline.sandbox.confine import confine_child, cpu_seconds, limit_cpu
from search.pipeline.sandbox.endings import Payload, memory_detail
from search.pipeline.sandbox.process import (
    CODE_PACKAGES,
    CPU_GRACE_SECONDS,
    FRAME,
    LOST_WITHOUT_LANDLOCK,
    MAX_OUTPUT_BYTES,
    OCR_LANGUAGES_ENV,
    PROGRESS_SECONDS,
    PROJECT_ROOT,
    SHARED_LIBRARIES,
    STARTUP_SECONDS,
    WALL_CLOCK_FACTOR,
)

if TYPE_CHECKING:  # the engine and the readers are loaded under the limits only
    from search.pipeline.formats import FormatReading
    from search.pipeline.layout.model import Ink, Structure
    from search.pipeline.ocr import Engine

# The types read as images (read by OCR), and the most pixels a page image of one may be
# decoded at to be drawn (the OCR lane's own cap is INGEST_OCR_MAX_PIXELS).
IMAGE_TYPES = frozenset(kind.code for kind in file_types.TYPES if kind.ocr)
DRAWN_IMAGE_PIXELS = 40_000_000


def main(argv: list[str]) -> int:
    """The child: `python -m search.pipeline.sandbox MEMORY_MB`, requests on stdin.

    Each request is a JSON line {"max_pages", "timeout", "ocr", "structure"}, or
    {"render": {"page", "width"}, "timeout"} to draw a page (the document comes over the
    channel, an open file); each answer one Payload, for any input, good or bad. Dying
    instead (a traceback, a signal) means the reader itself broke. Exits 0 when stdin
    closes.
    """
    memory_mb, channel = int(argv[1]), socket.socket(fileno=int(argv[2]))
    answers = _take_stdout()
    confine_child(memory_mb=memory_mb, cpu_seconds=STARTUP_SECONDS)
    # Imported under the limits: no PDF library is ever loaded in a process without them.
    from search.pipeline import images
    from search.pipeline.ocr import read_scans, start_engine
    from search.pipeline.reader import read_pdf, read_pdf_with_ink
    from search.pipeline.render import render_png

    # Collected by the reader as evidence of damage, not printed.
    logging.getLogger("pdfminer").propagate = False
    # The engine loads its language files now, while the walls still let it.
    engine = start_engine()
    if engine is None:
        # openpyxl loads numpy when it can, for nothing a reading needs: some 30 MB more
        # in every child, past the least memory INGEST_EXTRACT_MEMORY_MB allows.
        sys.modules.setdefault("numpy", None)  # type: ignore[arg-type]
    # The other types' readers, before the walls: their libraries read files of the
    # system's as they load (openpyxl, /etc/mime.types).
    from search.pipeline.formats import read_file

    walls = put_up_walls()  # before the first untrusted byte
    _write(answers, {"ready": True, "walls": walls}, memory_mb=memory_mb)
    for line in sys.stdin.buffer:
        request = json.loads(line)
        timeout = float(request["timeout"])
        _, fds, _, _ = socket.recv_fds(channel, 1, 1)
        # Deadlines of its own, for when the worker is gone: SIGXCPU, or SIGALRM.
        limit_cpu(timeout + CPU_GRACE_SECONDS)
        wall = request.get("wall", WALL_CLOCK_FACTOR * timeout + CPU_GRACE_SECONDS)
        signal.setitimer(signal.ITIMER_REAL, float(wall))
        order = OcrOrder.from_request(request["ocr"]) if request.get("ocr") else None
        code = str(request.get("type", "pdf"))
        image = code in IMAGE_TYPES
        work: Callable[[BinaryIO], Payload]
        if "render" in request:
            draw = partial(images.render_image_png, max_pixels=DRAWN_IMAGE_PIXELS)
            work = partial(_render, draw if image else render_png, request["render"])
        elif code == "pdf" or image:
            structure = bool(request.get("structure"))
            work = partial(
                _read,
                images.read_image if image else read_pdf_with_ink if structure else read_pdf,
                request["max_pages"],
                told=_PagesTold(answers),
                ocr=(order, engine) if order else None,
                scan=images.read_frames if image else read_scans,
                structure=structure,
            )
        else:
            work = partial(_read_format, read_file, code, request["max_pages"], _PagesTold(answers))
        payload = _answered(work, fds[0], memory_mb=memory_mb)
        signal.setitimer(signal.ITIMER_REAL, 0)
        _write(answers, payload, memory_mb=memory_mb)
    return 0


def put_up_walls() -> dict:
    """The child's walls on what it can see, once its imports are read (sandbox.main; the
    tests' probe calls it too): Landlock lets it open only the Python and project code it
    may still import (read-only) and its scratch directory (TMPDIR), never the data
    directory, the storage root or another process's /proc (an OCR child may also write
    to /dev/null); confine.confine_child has
    already refused it sockets, signals, ptrace and new processes. Says what held."""
    readable = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    readable |= {os.path.join(PROJECT_ROOT, package) for package in CODE_PACKAGES}
    readable |= set(SHARED_LIBRARIES)
    writable = [os.environ.get("TMPDIR", "")]
    # An OCR child's engine writes some of its debugging to /dev/null, which it opens as it
    # reads a page and never checks: refused, Tesseract crashes (a small, odd page does it).
    if os.environ.get(OCR_LANGUAGES_ENV):
        writable.append(os.devnull)
    version = landlock.restrict(sorted(readable), writable)
    if version == 0:
        return {"landlock": 0, "lost": LOST_WITHOUT_LANDLOCK}
    return {"landlock": version}


def _take_stdout() -> int:
    """A private copy of stdout for the answers. Everything else that would print there,
    Python's or a C library's, goes to stderr from now on: nothing can corrupt an answer,
    and no answer depends on what a failure left sys.stdout pointing at."""
    answers = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return answers


class _PagesTold:
    """Tells the parent the pages read, in `progress` frames: the count as soon as it is
    known (0 read), then at most every PROGRESS_SECONDS; the answer itself follows."""

    def __init__(self, answers: int, *, ocr: bool = False) -> None:
        self.answers = answers
        self.last = -math.inf
        self.ocr = ocr  # the pages read by OCR, not by the text reader

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        # Pages read by OCR are told each: the parent times each one (sandbox._PageClock).
        if done and not self.ocr and now - self.last < PROGRESS_SECONDS:
            return
        self.last = now
        progress: dict[str, object] = {"done": done, "total": total}
        if self.ocr:
            progress["ocr"] = True
        _send_frame(self.answers, json.dumps({"progress": progress}).encode())


def _answered(work: Callable[[BinaryIO], Payload], document: int, *, memory_mb: int) -> Payload:
    """What `work` makes of the document (an open file of the fd the parent sent), or the
    error it ran into, as an answer: the reader's permanent errors, a page the file does
    not have (with its page count), or memory run out."""
    try:
        with os.fdopen(document, "rb") as fp:
            return work(fp)
    except NoSuchPage as exc:
        return {"error": {"code": exc.code, "detail": exc.detail}, "page_count": exc.pages}
    except (PermanentError, ExtractTimeout) as exc:
        return {"error": {"code": exc.code, "detail": exc.detail}}
    except MemoryError:
        pass  # answered below, once the frames that held the memory are gone
    return {"error": {"code": TooComplex.code, "detail": memory_detail(memory_mb)}}


def _read(
    read_pdf: Callable[..., "list[str] | tuple[list[str], list[Ink] | None]"],
    max_pages: int,
    fp: BinaryIO,
    *,
    told: "_PagesTold | None" = None,
    ocr: "tuple[OcrOrder, Engine | None] | None" = None,
    scan: Callable[..., tuple] | None = None,
    structure: bool = False,
) -> Payload:
    """One document read: by `read_pdf` (read_pdf, read_pdf_with_ink for the structure
    too, or images.read_image), and with `ocr` the pages that need it, found or read by
    `scan` (ocr.read_scans, or images.read_frames)."""
    read = read_pdf(fp, max_pages=max_pages, on_pages=told)
    texts, inks = read if isinstance(read, tuple) else (read, None)
    payload: Payload = {"pages": texts}
    scanned: dict[int, Scanned] = {}
    if ocr is not None and scan is not None:
        fp.seek(0)
        payload, scanned = _scan(scan, fp, texts, *ocr, told=told)
    if structure:
        force = ocr is not None and ocr[0].force
        unreadable = {index for index, _ in payload.get("unreadable", [])}
        found = _structure(texts, inks, scanned, force=force, unreadable=unreadable)
        if found is not None:
            payload["structure"] = found.as_dict()
    return payload


def _read_format(
    read_file: Callable[..., "FormatReading"],
    code: str,
    max_pages: int,
    told: "_PagesTold",
    fp: BinaryIO,
) -> Payload:
    """One document of a type with a reader of its own (search/pipeline/formats): its
    pages' texts, its structure, what it says of itself and its attachments."""
    read = read_file(fp, code, max_pages=max_pages, on_pages=told)
    return {
        "pages": read.texts,
        "structure": read.structure.as_dict(),
        "metadata": read.metadata,
        "attachments": [
            [item.filename, item.media_type, base64.b64encode(item.data).decode("ascii")]
            for item in read.attachments
        ],
    }


def _render(render_png: Callable[..., bytes], asked: dict, fp: BinaryIO) -> Payload:
    """One page drawn (search/pipeline/render.py, or images.py for an image): its PNG."""
    picture = render_png(fp, number=int(asked["page"]), width=int(asked["width"]))
    return {"png": base64.b64encode(picture).decode("ascii")}


def _scan(
    scan: Callable[..., tuple],
    fp: BinaryIO,
    texts: list[str],
    order: OcrOrder,
    engine: "Engine | None",
    *,
    told: "_PagesTold | None",
) -> "tuple[Payload, dict[int, Scanned]]":
    """The text reader's pages, the pages that need OCR, and (ordered to) what it read."""
    on_scans = _PagesTold(told.answers, ocr=True) if told is not None else None
    scans, scanned, why = scan(fp, texts, order, engine, on_pages=on_scans)
    payload: Payload = {
        "pages": texts,
        "scans": scans,
        "scanned": [[index, page.text, page.confidence] for index, page in scanned.items()],
        "unreadable": [[index, reason] for index, reason in why.items()],
    }
    return payload, scanned


def _structure(
    texts: list[str],
    inks: "list[Ink] | None",
    scanned: "dict[int, Scanned]",
    *,
    force: bool,
    unreadable: set[int],
) -> "Structure | None":
    """The document's structure from each page's ink: the words OCR read on a page that
    takes OCR's text (classify.takes_ocr, as the worker decides), its text layer's ink
    otherwise. None when a page with text has no ink (PDFium did not read the file)."""
    from search.pipeline.classify import nonspace, takes_ocr
    from search.pipeline.layout.document import structure
    from search.pipeline.layout.model import Ink

    pages: list[Ink] = []
    for index, text in enumerate(texts):
        scan = scanned.get(index)
        takes = force or index in unreadable
        if scan is not None and scan.ink is not None and takes_ocr(text, scan.text, force=takes):
            pages.append(scan.ink)
        elif inks is not None:
            pages.append(inks[index])
        elif nonspace(text) == 0:
            pages.append(Ink(0.0, 0.0))  # a blank page: its size is not known here
        else:
            return None
    return structure(pages)


def _write(fd: int, payload: Payload, *, memory_mb: int) -> None:
    payload["cpu"] = cpu_seconds()
    _send_frame(fd, _encode(payload, memory_mb=memory_mb))


def _send_frame(fd: int, body: bytes) -> None:
    view = memoryview(FRAME.pack(len(body)) + body)
    while view:
        view = view[os.write(fd, view) :]


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
