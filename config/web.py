"""The Procfile's `web` process: `python -m config.web [gunicorn options]`.

gunicorn reads WEB_CONCURRENCY itself, with a bare int(), when it is imported, before our
config/gunicorn.py runs: a typo there would stop the process with a ValueError traceback
from inside gunicorn. So the settings file runs first, here, and a value it cannot use stops
the process with config.common.env's one-line message; then gunicorn starts as
`gunicorn config.wsgi -c config/gunicorn.py` with any extra options given.
"""

import runpy
import sys
from pathlib import Path

from config.common.env import ConfigurationError

SETTINGS = Path(__file__).with_name("gunicorn.py")


def main(argv: list[str]) -> None:
    try:
        runpy.run_path(str(SETTINGS))
    except ConfigurationError as error:
        sys.exit(f"web: {error}")
    from gunicorn.app.wsgiapp import run

    sys.argv = ["gunicorn", "config.wsgi", "-c", str(SETTINGS), *argv]
    run(prog="gunicorn")


if __name__ == "__main__":
    main(sys.argv[1:])
