"""Helpers the apps share and that import no app: reading the environment, metrics, Redis
clients, rate counters, locks, how numbers are written for people, and the like."""
