"""Direct uploads: the client sends the bytes straight to the bucket, and the service
checks what arrived and makes the job (started and completed through the API, by the
bucket's storage events, or by the sweeper)."""
