"""Warm sandboxes: extractor processes started ahead, each reading many documents in turn.

Starting a child (search/pipeline/sandbox/process.py) costs about 0.15 s of CPU, Python and the
reader's imports: more than reading a one-page PDF. A `Pool` keeps up to `size` started
children in this process and lends one to each reading thread. A child is retired after
`recycle_after` documents, and after anything but pages (an error answer, a timeout, a
crash, this thread interrupted); a replacement starts at once, so the next document finds
it ready. A child reads one owner's documents only: another owner's document gets a fresh
child, so a parser that a hostile file took over never sees the next tenant's bytes. No
thread ever waits for a child: with none idle it starts its own, kept afterwards if there
is room.

Children die with the worker. An idle one is blocked reading its stdin and exits when the
worker's end of that pipe closes, which the kernel does however the worker ends; a busy one
stops at its own CPU and wall-clock deadlines (sandbox.main). Not PR_SET_PDEATHSIG: Linux
sends that when the *thread* that started the child ends, which in a thread pool is not
the worker's death.
"""

import atexit
import collections
import os
import threading
from pathlib import Path

from search.pipeline.page import OcrOrder, OnPages, Reading
from search.pipeline.sandbox.process import Sandbox


class Pool:
    """Sandboxes with one memory limit, one extractor and one OCR engine (none: "" for
    `ocr_languages`), lent to threads (thread-safe)."""

    def __init__(
        self,
        *,
        size: int,
        recycle_after: int,
        memory_mb: int,
        extractor: str,
        ocr_languages: str = "",
        tessdata: str = "",
    ) -> None:
        self.size = size
        self.recycle_after = recycle_after
        self.memory_mb = memory_mb
        self.extractor = extractor
        self.ocr_languages = ocr_languages
        self.tessdata = tessdata
        self._idle: collections.deque[Sandbox] = collections.deque()
        self._lock = threading.Lock()

    def read(
        self,
        path: str | os.PathLike[str],
        *,
        max_pages: int,
        timeout: float,
        owner: int | None = None,
        on_pages: OnPages | None = None,
    ) -> list[str]:
        """Each page's raw text: `read_pages` without OCR."""
        reading = self.read_pages(
            path, max_pages=max_pages, timeout=timeout, owner=owner, on_pages=on_pages
        )
        return reading.texts

    def read_pages(
        self,
        path: str | os.PathLike[str],
        *,
        max_pages: int,
        timeout: float,
        owner: int | None = None,
        on_pages: OnPages | None = None,
        ocr: OcrOrder | None = None,
        on_scans: OnPages | None = None,
        structure: bool = False,
    ) -> Reading:
        """What a pooled child read (Sandbox.read_pages), a child that has read no other
        owner's documents (a parser taken over by one owner's file must not see the next
        owner's); raises as Sandbox.read_pages, and OSError when `path` cannot be found
        (before any child is involved)."""
        resolved = Path(path).resolve(strict=True)
        sandbox = self._borrow(owner)
        sandbox.owner = owner
        try:
            pages = sandbox.read_pages(
                resolved,
                max_pages=max_pages,
                timeout=timeout,
                on_pages=on_pages,
                ocr=ocr,
                on_scans=on_scans,
                structure=structure,
            )
        except BaseException:
            self._retire(sandbox)
            raise
        self._returned(sandbox)
        return pages

    def render_page(
        self,
        path: str | os.PathLike[str],
        *,
        number: int,
        width: int,
        timeout: float,
        owner: int | None = None,
    ) -> bytes:
        """A page drawn by a pooled child (Sandbox.render_page) that has read no other
        owner's documents; raises as Sandbox.render_page, and OSError when `path` cannot
        be found."""
        resolved = Path(path).resolve(strict=True)
        sandbox = self._borrow(owner)
        sandbox.owner = owner
        try:
            picture = sandbox.render_page(resolved, number=number, width=width, timeout=timeout)
        except BaseException:
            self._retire(sandbox)
            raise
        self._returned(sandbox)
        return picture

    def close(self) -> None:
        """Stop every idle child (busy ones end with the reading that holds them)."""
        while True:
            with self._lock:
                if not self._idle:
                    return
                sandbox = self._idle.popleft()
            sandbox.stop()

    def idle_pids(self) -> list[int]:
        with self._lock:
            return [sandbox.pid for sandbox in self._idle]

    def _borrow(self, owner: int | None) -> Sandbox:
        """An idle child that served this owner, else a fresh one (never used), else a new
        one; idle children of other owners stay for their owners."""
        while True:
            with self._lock:
                sandbox = self._take_idle(owner)
            if sandbox is None:
                return self._start()
            if sandbox.alive():
                return sandbox
            sandbox.stop()  # died while idle (killed from outside): reap it, try the next

    def _take_idle(self, owner: int | None) -> Sandbox | None:
        """One that read this owner's documents (with no owner: any that read none's), else
        one that has read nothing yet."""
        for sandbox in self._idle:
            if sandbox.owner == owner:
                self._idle.remove(sandbox)
                return sandbox
        for sandbox in self._idle:
            if sandbox.served == 0:
                self._idle.remove(sandbox)
                return sandbox
        return None

    def _returned(self, sandbox: Sandbox) -> None:
        """Kept for the next reading, or retired after `recycle_after` of them."""
        if sandbox.served >= self.recycle_after:
            self._retire(sandbox)
        else:
            self._keep(sandbox)

    def _retire(self, sandbox: Sandbox) -> None:
        sandbox.stop()
        with self._lock:
            room = len(self._idle) < self.size
        if room:
            self._keep(self._start())

    def _keep(self, sandbox: Sandbox) -> None:
        """Back among the idle ones; when they are full, the one idle longest makes room
        (so the children kept follow the owners reading lately)."""
        evicted = None
        with self._lock:
            if self.size == 0:
                evicted = sandbox
            else:
                if len(self._idle) >= self.size:
                    evicted = self._idle.popleft()
                self._idle.append(sandbox)
        if evicted is not None:
            evicted.stop()

    def _start(self) -> Sandbox:
        return Sandbox(
            memory_mb=self.memory_mb,
            extractor=self.extractor,
            ocr_languages=self.ocr_languages,
            tessdata=self.tessdata,
        )


_pools: dict[tuple[int, int, int, int, str, str, str], Pool] = {}
_pools_lock = threading.Lock()


def shared_pool(
    *,
    size: int,
    recycle_after: int,
    memory_mb: int,
    extractor: str,
    ocr_languages: str = "",
    tessdata: str = "",
) -> Pool:
    """This process's pool for these settings, made on first use."""
    # The pid too: a process forked from this one must not share its children.
    key = (os.getpid(), size, recycle_after, memory_mb, extractor, ocr_languages, tessdata)
    with _pools_lock:
        if key not in _pools:
            _pools[key] = Pool(
                size=size,
                recycle_after=recycle_after,
                memory_mb=memory_mb,
                extractor=extractor,
                ocr_languages=ocr_languages,
                tessdata=tessdata,
            )
        return _pools[key]


@atexit.register
def close_pools() -> None:
    """Stop this process's idle children now rather than when their stdin closes."""
    with _pools_lock:
        pools = list(_pools.values())
    for pool in pools:
        pool.close()
