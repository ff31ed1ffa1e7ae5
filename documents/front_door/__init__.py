"""The front door: what every upload passes before anything is stored.

Admission (the backlog, the user's rate, jobs in flight, quotas) refuses before a byte of
the body is read; validation streams the files and refuses what is not a PDF or too
large; intake turns what was accepted into documents and jobs, each upload one statement
(insert), answered once per Idempotency-Key. Every refusal is a `refusal.Refusal`.
"""
