"""Which of the Procfile's processes this is, from its command line: the name each of its
database connections gives Postgres (`application_name`)."""

from pathlib import Path

# manage.py commands that are a Procfile process of their own.
COMMANDS = {"rundramatiq": "worker", "requeue_stuck": "sweeper", "migrate": "release"}


def process_role(argv: list[str]) -> str:
    """`ingest web` (gunicorn), `ingest ws` (daphne), `ingest worker` (rundramatiq and
    Dramatiq's worker processes), `ingest sweeper`, `ingest release`; another manage.py
    command by its name (`ingest shell`); `ingest` for anything else."""
    program = Path(argv[0]).name if argv else ""
    if program in ("gunicorn", "web.py"):  # `python -m config.web` runs config/web.py
        return "ingest web"
    if program == "daphne":
        return "ingest ws"
    if program in ("dramatiq", "dramatiq-gevent"):  # as rundramatiq execs it
        return "ingest worker"
    if program == "manage.py" and len(argv) > 1:
        return f"ingest {COMMANDS.get(argv[1], argv[1])}"[:63]
    return "ingest"


# The Procfile's lines that may be given a database URL of their own.
LINES = ("web", "ws", "worker", "sweeper", "release")


def own_database_variable(role: str) -> str | None:
    """The variable naming a process line's own database URL: `WEB_DATABASE_URL` for
    `ingest web`, `WORKER_DATABASE_URL` for `ingest worker`; None for anything else (a
    shell, a one-off command), which reads the shared DATABASE_URL."""
    line = role.removeprefix("ingest ")
    return f"{line.upper()}_DATABASE_URL" if line in LINES else None
