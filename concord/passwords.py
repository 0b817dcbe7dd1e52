"""Password hashing: Argon2id at OWASP's minimum cost, PBKDF2 hashes still accepted.

Why not Django's default: PBKDF2-SHA256 at Django 5.2's 1,000,000 iterations costs about
300 ms of CPU per login on this project's two-core machine kind, so 200 annotators arriving
within a minute need the two cores for about a minute (issue 29: login p95 30 s, every other
page queued behind the logins). Django's own Argon2 settings (100 MiB, 8 lanes) cost as
much CPU here. The OWASP Password Storage Cheat Sheet's first recommended configuration,
Argon2id with 19 MiB of memory, 2 iterations and 1 degree of parallelism, is memory-hard
(a GPU attack is bounded by memory, not by CPU) and costs about 30 ms of CPU: about a tenth.
The cost is not lowered below that guidance.

An existing PBKDF2 (or differently tuned Argon2) hash still verifies; Django rehashes it
with the first hasher at the user's next successful login (``must_update``).
"""

from django.contrib.auth.hashers import Argon2PasswordHasher


class OwaspArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2id, m = 19 MiB, t = 2, p = 1 (OWASP Password Storage Cheat Sheet). The
    algorithm name stays ``argon2``: the stored hash is the standard PHC string, which
    carries its own parameters, so any Argon2 hasher can verify it."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
