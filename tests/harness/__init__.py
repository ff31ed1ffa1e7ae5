"""What tests and benchmarks both stand on: private services in a directory of their own.

Tests (tests/services.py, the pytest plugin) and benchmarks (tests/bench/) import this;
it imports no test module and no benchmark, so the dependency runs one way.
"""
