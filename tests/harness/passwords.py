"""Password hashing that costs a test nothing: PBKDF2 with a thousand rounds, not Django's
million (a quarter of a second of CPU for every user a test makes).

The encoded hash names its algorithm and its rounds ("pbkdf2_sha256$1000$..."), and
Django's own PBKDF2 hasher verifies with the rounds the hash names: the servers the tests
start as processes, on the service's settings, accept these passwords as they are.
"""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1000


HASHERS = [
    "tests.harness.passwords.QuickPBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
