"""Upload-acknowledgement benchmark: the real upload API against a minimal floor app.

`python -m tests.bench` (or `make bench`) starts a private Postgres and Redis in a temporary
directory, serves the real app (`config.wsgi`), the floor (`tests.bench.floor`) and the Django
floor (`tests.bench.django_floor`) with the same gunicorn settings, sends the same multipart
uploads to each, and reports latency percentiles, throughput and the ratios real/floor
against the targets, split into django/floor and real/django. docs/working/benchmarks.md
explains the figures; the run's tables go to docs/working/benchmark-results.md.

- `tests.bench.floor`: the floor, a raw WSGI app (store the file, insert one row, push the id).
- `tests.bench.django_floor`: the same work as a bare Django view on the project's settings.
- `tests.bench.load`: payloads and the load generator (raw HTTP/1.1 over sockets, one thread per
  client).
- `tests.bench.services`: the private Postgres and Redis (tests.harness.services), the database
  set-up, gunicorn servers.
- `tests.bench.report`: percentiles, targets, the table, the results page and the JSON results.
- `tests.bench.runner`: the command line and the order of the runs.
"""
