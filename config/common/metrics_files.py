"""The multiprocess metrics files, read as prometheus_client reads them, less the empty
ones: a process killed between creating its file and sizing it leaves it empty, and
prometheus_client's collector then fails every scrape until the directory is cleared."""

import glob
import os
from collections.abc import Iterable

from prometheus_client import multiprocess
from prometheus_client.metrics_core import Metric

HEADER = 8  # the used-bytes count every file starts with


class MultiProcessCollector(multiprocess.MultiProcessCollector):
    def collect(self) -> Iterable[Metric]:
        files = []
        for path in glob.glob(os.path.join(self._path, "*.db")):
            try:
                if os.path.getsize(path) >= HEADER:
                    files.append(path)
            except FileNotFoundError:  # its process's files were just removed
                continue
        return self.merge(files, accumulate=True)
