"""Warm sandboxes: started readers serve document after document, and never outlive a fault."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from search.pipeline.errors import Corrupt, ExtractTimeout, NotAPdf, TooComplex
from search.pipeline.sandbox.pool import Pool
from search.pipeline.sandbox.process import PROJECT_ROOT
from tests.factories import CORPUS, make_pdf

GEOTOPO = CORPUS / "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"


@pytest.fixture
def pool():
    pool = Pool(size=2, recycle_after=5, memory_mb=256, extractor="pdfminer")
    yield pool
    pool.close()


@pytest.fixture
def one_page(tmp_path) -> Path:
    path = tmp_path / "one.pdf"
    path.write_bytes(make_pdf(pages=1, words_per_page=30))
    return path


def read(pool: Pool, path: Path, timeout: float = 60) -> list[str]:
    return pool.read(path, max_pages=200, timeout=timeout)


def reaped(pid: int) -> bool:
    return pid not in {child.pid for child in psutil.Process().children(recursive=True)}


def test_one_started_reader_serves_document_after_document_quickly(pool, one_page):
    read(pool, one_page)  # the start-up, paid once
    (pid,) = pool.idle_pids()
    started = time.perf_counter()

    for _ in range(3):  # documents 2 to 4 of the 5 it may read
        assert read(pool, one_page)[0].startswith("Page 1.")

    assert pool.idle_pids() == [pid]
    # A fresh interpreter per document took about 0.2 s; a warm one reads a page in ~0.03 s.
    assert (time.perf_counter() - started) / 3 < 0.15


def test_a_reader_is_replaced_after_recycle_after_documents(pool, one_page):
    read(pool, one_page)
    (first,) = pool.idle_pids()

    for _ in range(4):  # documents 2 to 5: the fifth retires it
        read(pool, one_page)

    assert first not in pool.idle_pids()
    assert reaped(first)
    assert len(pool.idle_pids()) == 1  # its successor, started at once


def test_a_reader_is_replaced_after_any_failure_and_the_next_document_is_read(
    pool, one_page, tmp_path
):
    read(pool, one_page)
    (first,) = pool.idle_pids()
    not_a_pdf = tmp_path / "blob.bin"
    not_a_pdf.write_bytes(b"\x00\x13\x37 no type read here")

    with pytest.raises(NotAPdf):
        read(pool, not_a_pdf)

    assert reaped(first)
    assert read(pool, one_page)[0].startswith("Page 1.")
    assert first not in pool.idle_pids()


def test_a_reader_past_its_deadline_is_killed_and_replaced(pool, one_page):
    read(pool, one_page)
    (first,) = pool.idle_pids()

    with pytest.raises((TooComplex, ExtractTimeout)):  # ExtractTimeout if the machine is busy
        read(pool, GEOTOPO, timeout=1)

    assert reaped(first)
    assert read(pool, one_page)[0].startswith("Page 1.")


def test_a_reader_killed_while_idle_is_skipped_and_reaped(pool, one_page):
    read(pool, one_page)
    (first,) = pool.idle_pids()
    os.kill(first, signal.SIGKILL)
    time.sleep(0.1)

    assert read(pool, one_page)[0].startswith("Page 1.")
    assert reaped(first)


def test_threads_share_the_pool_without_waiting_or_mixing_answers(pool, tmp_path):
    paths = []
    for pages in range(1, 9):
        paths.append(tmp_path / f"{pages}.pdf")
        paths[-1].write_bytes(make_pdf(pages=pages, words_per_page=10))
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.4\nnothing else")

    def pages_of(path: Path) -> int | str:
        try:
            return len(read(pool, path))
        except Corrupt:
            return "corrupt"

    with ThreadPoolExecutor(4) as threads:
        results = list(threads.map(pages_of, [*paths, corrupt] * 3))

    assert results == [*range(1, 9), "corrupt"] * 3
    assert len(pool.idle_pids()) <= 2


WORKER = """
import sys, time
from search.pipeline.sandbox.pool import Pool
pool = Pool(size=2, recycle_after=50, memory_mb=256, extractor="pdfminer")
pool.read(sys.argv[1], max_pages=200, timeout=60)
print(" ".join(map(str, pool.idle_pids())), flush=True)
if len(sys.argv) > 2:
    pool.read(sys.argv[2], max_pages=200, timeout=float(sys.argv[3]))
time.sleep(600)
"""


def start_worker(*args: str) -> subprocess.Popen[str]:
    """A stand-in worker process with its own pool, to be killed."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(WORKER), *args],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": PROJECT_ROOT},
    )


def test_idle_readers_exit_when_their_worker_is_killed(one_page):
    worker = start_worker(str(one_page))
    assert worker.stdout is not None
    readers = [psutil.Process(int(pid)) for pid in worker.stdout.readline().split()]

    worker.kill()
    worker.wait()

    assert readers
    assert all_exit(readers, within=5)


def test_a_busy_reader_stops_at_its_own_deadline_when_its_worker_is_killed(one_page):
    worker = start_worker(str(one_page), str(GEOTOPO), "2")
    assert worker.stdout is not None
    readers = [psutil.Process(int(pid)) for pid in worker.stdout.readline().split()]
    time.sleep(0.5)  # one of them is reading GeoTopo now, for about 12 s

    worker.kill()
    worker.wait()

    # Its own limits: 2 s, plus the 5 s grace it allows a worker to kill it first.
    assert all_exit(readers, within=10)


def all_exit(processes: list[psutil.Process], within: float) -> bool:
    """Every one ends (a zombie has ended too: whoever inherits it reaps it)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(running(process) for process in processes):
            return True
        time.sleep(0.05)
    return False


def running(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
