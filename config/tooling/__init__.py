"""Running the service on one machine and keeping its docs: the embedded Postgres and Redis,
the Procfile runner of `make run`, a private S3 server (SeaweedFS) for the tests and the
image check, and the configuration reference."""
