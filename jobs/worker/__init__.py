"""A worker's side of a job, below its actor (jobs/actors.py): running the pipeline on a
claimed job, keeping its lease alive, riding out a database restart, and the nice value
of the worker's processes."""
