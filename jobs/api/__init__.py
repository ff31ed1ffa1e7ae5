"""The jobs API: a job's status for its owner, read-only."""
