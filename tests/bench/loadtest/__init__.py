"""The load test: `make loadtest` (`python -m tests.bench.loadtest --users 500`).

Accept quickly, record durably, process idempotently, push back when full, and prove it:
N users upload real PDFs at once to a private stack (gunicorn, daphne, Dramatiq workers,
the sweeper, Postgres with pgvector, Redis, a fake OpenAI-compatible embeddings server);
a worker is SIGKILLed while it holds jobs, Redis and Postgres are restarted, the provider
answers 429 for a while; every criterion is then judged from what the clients saw and
what the database holds, and a report is written to var/loadtest/<time>/.

- `scenario`: the knobs and their defaults (scaled down for short runs).
- `stack`: the private services and server processes.
- `payloads`: the uploads, from tests/corpus/.
- `client`: the users (raw HTTP), the burst and the clients that keep pushing.
- `faults`: the faults, with their times.
- `sampler`: the job table read twice a second during the run.
- `collect`: the database at the end; `stalls` and `criteria`: the judgement.
- `plots` and `report`: report.html and results.json.
- `run`: one run, in order.
"""
