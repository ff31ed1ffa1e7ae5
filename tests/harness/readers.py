"""Finding the PDF reader a test started, and waiting until it is reading, not starting.

A test that stops or kills a reader "mid-read" must not do it while the reader is still
starting: a starved start-up is a different failure (STARTUP_SECONDS), and a fixed sleep
is not enough on a busy machine. The reader is handed the document as an open file once
it is ready, so holding a PDF open is the sign that it has begun to read.
"""

import time

import psutil

from search.pipeline.sandbox.process import CHILD_MODULE


def our_processes() -> set[int]:
    """Our child processes, zombies included (the test run's servers too)."""
    return {child.pid for child in psutil.Process().children(recursive=True)}


def new_reader(before: set[int], within: float = 60) -> int:
    """The pid of a reader child that was not among `before`, once it exists."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for child in psutil.Process().children(recursive=True):
            try:
                if child.pid not in before and CHILD_MODULE in child.cmdline():
                    return child.pid
            except psutil.Error:  # it may end while we look
                continue
        time.sleep(0.02)
    raise AssertionError(f"no reader process started within {within:g} s")


def wait_until_reading(pid: int, within: float = 60) -> None:
    """Return once the reader `pid` holds a PDF open: past its start-up, reading."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if _holds_a_pdf(psutil.Process(pid)):
            return
        time.sleep(0.02)
    raise AssertionError(f"the reader {pid} was not reading within {within:g} s")


def reading_reader(before: set[int], within: float = 60) -> int:
    """A reader started after `before`, returned once it is reading."""
    pid = new_reader(before, within)
    wait_until_reading(pid, within)
    return pid


def _holds_a_pdf(process: psutil.Process) -> bool:
    for opened in process.open_files():
        try:
            with open(opened.path, "rb") as file:
                if file.read(5) == b"%PDF-":
                    return True
        except OSError:  # a scratch file gone already
            continue
    return False
