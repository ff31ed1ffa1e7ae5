"""What operators see of the pipeline: /metrics, the /ops/ dashboard, alerts, and the
worker heartbeats and per-minute history they read. A Django app of its own (label
`ops`) inside jobs, whose rows it only reads."""
