"""A container's health check, with urllib (the image has no curl); it imports no Django.

    python config/deploy/healthcheck.py           # healthy: web's /healthz answers 200
    python config/deploy/healthcheck.py --alive   # alive: web's /healthz answers at all
    python config/deploy/healthcheck.py --ws      # alive: ws (daphne) answers HTTP at all

It asks 127.0.0.1 on PORT (8000) for web and WS_PORT (8001) for ws. /healthz is 200 when
the database and Redis answer, 503 otherwise: `--alive` takes any answer, for a liveness
probe that must not restart a web process only because Postgres is down. Django answers
400 to a Host it does not serve, /healthz too, so the request names the first host of
DJANGO_ALLOWED_HOSTS (".example.com" as example.com; "*" or unset: localhost). daphne
answers a plain request with 404, which says it is up. Exits 0 or 1 with one line.
"""

import os
import sys
import urllib.error
import urllib.request

TIMEOUT_SECONDS = 4  # /healthz gives each of its checks a second


def host_header() -> str:
    hosts = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",")]
    for host in hosts:
        if host and host != "*":
            return host.lstrip(".")
    return "localhost"


def status(url: str) -> int:
    request = urllib.request.Request(url, headers={"Host": host_header()})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return int(response.status)
    except urllib.error.HTTPError as answer:
        return int(answer.code)


def main(argv: list[str]) -> int:
    ws = "--ws" in argv
    port = os.environ.get("WS_PORT", "8001") if ws else os.environ.get("PORT", "8000")
    url = f"http://127.0.0.1:{port}/" if ws else f"http://127.0.0.1:{port}/healthz"
    try:
        code = status(url)
    except (OSError, ValueError) as error:
        print(f"unhealthy: {url}: {error}")
        return 1
    if ws or "--alive" in argv or code == 200:
        print(f"ok: {url} answered {code}")
        return 0
    print(f"unhealthy: {url} answered {code}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
