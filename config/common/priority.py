"""Background work yields the CPU to the web process, also where the kernel groups by session.

The Procfile starts the workers under `nice` (WORKER_NICE 10, WORKER_BATCH_NICE 15) so that
accepting an upload comes before extracting one. With the kernel's autogroup scheduling
(`/proc/sys/kernel/sched_autogroup_enabled`, on by default in Debian and most
distributions) nice only orders processes within one session: the CPU is first shared
between sessions, equally, and the Procfile runner starts each process in a session of its
own, as the sandbox starts each extractor child. A burst of uploads was answered as slowly
with the workers at nice 10 as at nice 0 (tests.bench.busy), and a dozen extractor children at
nice 0 in sessions of their own took 1.5 of the 2 cores from the web process.

An autogroup has a nice value of its own. A process whose session holds only its own kind
(a worker's session led by a Dramatiq command; an extractor child, its own session's
leader) gives its session the process's nice value; a session shared with anything else,
such as a shell's, is left alone.
"""

import os
from pathlib import Path

AUTOGROUP = Path("/proc/self/autogroup")


def session_led_by_dramatiq(session_id: int) -> bool:
    """Whether the session's leader is a Dramatiq worker command (rundramatiq or dramatiq),
    so that its autogroup holds nothing but that worker's processes."""
    try:
        command = Path(f"/proc/{session_id}/cmdline").read_bytes()
    except OSError:
        return False
    return b"dramatiq" in command


def share_nice_with_session(autogroup: Path = AUTOGROUP) -> int | None:
    """Give this process's autogroup the process's own nice value, when it is above 0 and
    the kernel groups by session. Returns the value set, or None. Call it only from a
    process whose session is its own kind's (see the module's docstring)."""
    nice = os.nice(0)
    if nice <= 0 or not autogroup.exists():
        return None
    try:
        autogroup.write_text(f"{nice}\n")  # raising a nice value needs no privilege
    except OSError:
        return None
    return nice
