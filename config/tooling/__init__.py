"""Running the service on one machine and keeping its docs: the embedded Postgres and Redis,
the Procfile runner of `make run`, and the configuration reference."""
