"""What tests and benchmarks both stand on: private Postgres and Redis in a directory of
their own (services.py), the service's processes on them (servers.py: gunicorn, daphne
and workers as the Procfile runs them), faults to inject (faults.py: kill a process
group, restart Redis or Postgres), cheap password hashes (passwords.py) and the "no chunk
twice" check (chunks.py).

Tests (tests/services.py, the pytest plugin, and the suites) and benchmarks (tests/bench/)
import this; it imports no test module and no benchmark, so the dependency runs one way.
"""
