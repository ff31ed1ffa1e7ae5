"""Completion webhooks, on the Standard Webhooks conventions: integrators hear when a
document is ready or failed instead of polling. An app of its own (label `webhooks`)
inside jobs: events are written by jobs' state changes, in their transaction (an outbox),
and delivered by an actor after commit."""
