"""The job admin: the dead-letter console (console.py, registered here, where Django's
admin looks), how it shows a job (display.py) and what narrows its lists (filters.py)."""

from jobs.admin import console  # noqa: F401  (registers the console's model admins)
