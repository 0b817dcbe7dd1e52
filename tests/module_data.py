"""Data built once for a whole test module, for modules whose tests only read it (or write
inside their own test transaction): the demo, the permission world, the query-count world.

The data is built inside a transaction that stays open for the module and is rolled back at
its end; each test's own transaction (pytest-django's ``db``) is a savepoint inside it, so
whatever a test writes is undone before the next test, and the next module starts without
the data. Only for modules without transactional or live-server tests: those flush the
database, this data included (issue 14: building per test was most of these modules' time).
"""

from collections.abc import Callable, Iterator
from typing import TypeVar

from django.db import transaction
from django.test.utils import override_settings

T = TypeVar("T")
FAST_HASHER = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def module_data(django_db_blocker, build: Callable[[], T], **settings) -> Iterator[T]:
    """The body of a module-scoped fixture: ``yield from module_data(django_db_blocker,
    build)`` yields what ``build()`` returns, built with ``settings`` overridden (password
    hashing always fast) inside the module's transaction, and rolls it back at the end."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        # Marked like TestCase's own class-level atomics, so a durable atomic block inside a
        # test is still refused only where it would be outside the tests too.
        outer._from_testcase = True
        outer.__enter__()
        try:
            with override_settings(PASSWORD_HASHERS=FAST_HASHER, **settings):
                value = build()
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    try:
        yield value
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
