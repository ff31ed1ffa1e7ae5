"""Bombs end, and end once: crafted PDFs against the real sandbox, and the walls around it."""

import errno
import json
import socket
import subprocess
import sys
import tempfile
import textwrap
import zlib
from pathlib import Path
from typing import IO, Any, cast

import pytest

from search.pipeline.errors import TooComplex
from search.pipeline.extract import extract_document
from search.pipeline.sandbox import process
from search.pipeline.sandbox.confine import OPEN_FILES, WRITTEN_BYTES, make_undumpable
from search.pipeline.sandbox.pool import Pool
from tests.factories import make_pdf
from tests.search.conftest import children_cpu_seconds
from tests.search.handmade import deflate_bomb, pdf_of, pdf_with_content


def stream(content: bytes) -> bytes:
    packed = zlib.compress(content, 9)
    return b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed)


def pages_sharing_one_heavy_stream(pages: int) -> bytes:
    """`pages` pages that all draw the same content stream: 400 lines of text each, so
    the file stays small while every page costs the reader its full layout analysis."""
    lines = b"".join(
        b"BT /F1 9 Tf 1 0 0 1 %d %d Tm (ingestion pipeline worker queue vector) Tj ET\n"
        % (20 + (line % 4) * 140, 20 + (line // 4) * 7)
        for line in range(400)
    )
    kids = b" ".join(b"%d 0 R" % (5 + page) for page in range(pages))
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 3 0 R >> >> >>"
    )
    return pdf_of(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            stream(lines),
            *[page] * pages,
        ]
    )


def write(directory: Path, content: bytes, name: str = "upload.pdf") -> Path:
    path = directory / name
    path.write_bytes(content)
    return path


def test_two_thousand_pages_sharing_one_heavy_stream_end_as_too_complex_once(
    tmp_path, patient_wall_clock
):
    content = pages_sharing_one_heavy_stream(2000)
    path = write(tmp_path, content)
    spent = children_cpu_seconds()

    with pytest.raises(TooComplex) as caught:
        extract_document(path, max_pages=2000, timeout=2.0, memory_mb=1024)

    assert len(content) < 400 * 1024
    assert caught.value.code == "too_complex"
    assert "takes more than 2 s of CPU time" in caught.value.detail
    # Once, at its CPU time: permanent, so no retry spends another deadline on it
    # (counted in CPU seconds, which a busy machine does not stretch).
    assert children_cpu_seconds() - spent < 2 * 2.0


def test_text_that_makes_the_reader_allocate_without_bound_is_too_complex(tmp_path, settings):
    # 5 MB of one glyph in one string, 5 KB packed: pdfminer makes an object per glyph.
    # (PDFium reads the same string in a fraction of the memory: a file it reads whole.)
    settings.INGEST_EXTRACTOR = "pdfminer"
    content = b"BT /F1 1 Tf 0 0 Td (" + b"A" * 5_000_000 + b") Tj ET"
    path = write(tmp_path, pdf_with_content(zlib.compress(content, 9), filters=b"/FlateDecode"))

    with pytest.raises(TooComplex) as caught:
        extract_document(path, max_pages=10, timeout=60, memory_mb=256)

    assert "more than 256 MB of memory" in caught.value.detail


def test_the_answer_survives_a_memory_error_and_the_child_reads_on(tmp_path):
    bomb = write(tmp_path, pdf_with_content(deflate_bomb(gib=4), filters=b"/FlateDecode"), "b.pdf")
    sound = write(tmp_path, make_pdf(pages=2, words_per_page=10), "sound.pdf")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    child = subprocess.Popen(
        [sys.executable, "-P", "-m", process.CHILD_MODULE, "256", str(theirs.fileno())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=process._child_environment("pdfminer", str(tmp_path)),
        pass_fds=[theirs.fileno()],
    )
    theirs.close()
    with child, ours:
        assert receive(child)["ready"] is True

        ask(child, ours, bomb)
        assert receive(child)["error"]["code"] == "too_complex"  # from the child itself
        ask(child, ours, sound)
        assert len(receive(child)["pages"]) == 2

        cast(IO[bytes], child.stdin).close()
        assert child.wait(timeout=10) == 0


def ask(child: subprocess.Popen[bytes], channel: socket.socket, path: Path) -> None:
    """The parent's half of one request: the document as an open file, then the line."""
    with open(path, "rb") as document:
        socket.send_fds(channel, [b"d"], [document.fileno()])
    stdin = cast(IO[bytes], child.stdin)
    stdin.write(b'{"max_pages": 10, "timeout": 60}\n')
    stdin.flush()


def receive(child: subprocess.Popen[bytes]) -> dict[str, Any]:
    """The child's next answer; the frames telling the pages read before it are skipped."""
    stdout = cast(IO[bytes], child.stdout)
    while True:
        (size,) = process.FRAME.unpack(stdout.read(process.FRAME.size))
        answer = json.loads(stdout.read(size))
        if "progress" not in answer:
            return answer


def test_a_pooled_reader_runs_with_no_processes_files_capabilities_or_core_to_spare(tmp_path):
    pool = Pool(size=1, recycle_after=10, memory_mb=256, extractor="pdfminer")
    pool.read(write(tmp_path, make_pdf(pages=1)), max_pages=10, timeout=60)
    (pid,) = pool.idle_pids()

    limits = Path(f"/proc/{pid}/limits").read_text()
    status = Path(f"/proc/{pid}/status").read_text()
    pool.close()

    assert limit_line(limits, "Max processes") == ["0", "0"]
    assert limit_line(limits, "Max open files") == [str(OPEN_FILES)] * 2
    assert limit_line(limits, "Max file size") == [str(WRITTEN_BYTES)] * 2
    assert limit_line(limits, "Max core file size") == ["0", "0"]
    assert limit_line(limits, "Max address space") == [str(256 * 2**20)] * 2
    assert "CapEff:\t0000000000000000" in status
    assert "NoNewPrivs:\t1" in status


def limit_line(limits: str, name: str) -> list[str]:
    (line,) = [line for line in limits.splitlines() if line.startswith(name)]
    return line[len(name) :].split()[:2]


CONFINED = """
from search.pipeline.sandbox.confine import confine_child
confine_child(memory_mb=256, cpu_seconds=30)
"""


def run_confined(code: str) -> subprocess.CompletedProcess[str]:
    """`code` in a process confined as the reader confines itself, before any import."""
    return subprocess.run(
        [sys.executable, "-P", "-c", CONFINED + textwrap.dedent(code)],
        env=process._child_environment("pdfminer", tempfile.gettempdir()),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_confined_reader_can_start_no_process_and_no_thread_so_nothing_outlives_its_kill():
    done = run_confined(
        """
        import errno, os, sys, threading
        for start in (os.fork, lambda: threading.Thread(target=print).start()):
            try:
                start()
                print("started")
            except (OSError, RuntimeError) as exc:
                refused = getattr(exc, "errno", 0) in (errno.EAGAIN, errno.EPERM)
                print(refused or "thread" in str(exc))
        try:
            os.execv(sys.executable, [sys.executable, "-c", "print('ran')"])
        except OSError as exc:
            print(exc.errno == errno.EPERM)
        """
    )

    assert done.stdout.split() == ["True", "True", "True"], done.stderr


def test_a_confined_reader_cannot_hold_many_files_or_write_a_big_one(tmp_path):
    done = run_confined(
        f"""
        import os
        try:
            held = [open(os.devnull) for _ in range({OPEN_FILES} + 1)]
        except OSError as exc:
            print(exc.errno)
        try:
            with open({str(tmp_path / "big")!r}, "wb") as big:
                big.write(bytes({WRITTEN_BYTES} + 1))
        except OSError as exc:  # Python ignores SIGXFSZ: the write fails instead
            print(exc.errno)
        """
    )

    assert done.stdout.split() == [str(errno.EMFILE), str(errno.EFBIG)], done.stderr
    assert (tmp_path / "big").stat().st_size <= WRITTEN_BYTES


def test_a_confined_reader_cannot_read_the_workers_secrets_in_proc():
    make_undumpable()  # what a worker does before it starts its first reader

    done = run_confined(
        """
        import os
        for entry in ("environ", "mem", "maps"):
            try:
                with open(f"/proc/{os.getppid()}/{entry}", "rb") as proc:
                    proc.read(1)
                print(entry, "read")
            except PermissionError:
                print(entry, "refused")
        """
    )

    assert done.stdout.split() == ["environ", "refused", "mem", "refused", "maps", "refused"]
