"""Generated pseudonyms like "ChattySquirrel-1": memorable, never a real name.

``generate(taken, rng)`` returns a pseudonym not in ``taken``: an adjective and an animal,
and the smallest number that makes it new. Pure: the caller passes what is taken.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

ADJECTIVES = (
    "Agile", "Bold", "Brave", "Bright", "Calm", "Chatty", "Cheerful", "Clever", "Curious",
    "Daring", "Eager", "Fancy", "Gentle", "Happy", "Humble", "Jolly", "Keen", "Kind", "Lively",
    "Lucky", "Merry", "Mighty", "Nimble", "Patient", "Playful", "Plucky", "Polite", "Quick",
    "Quiet", "Sharp", "Shy", "Snappy", "Spry", "Steady", "Sunny", "Swift", "Tidy", "Witty",
    "Wise", "Zesty",
)  # fmt: skip
ANIMALS = (
    "Badger", "Beaver", "Bison", "Crane", "Dolphin", "Falcon", "Ferret", "Finch", "Fox",
    "Gecko", "Heron", "Ibis", "Koala", "Lemur", "Lynx", "Marmot", "Marten", "Meerkat", "Newt",
    "Otter", "Owl", "Panda", "Pelican", "Puffin", "Quail", "Rabbit", "Raven", "Robin",
    "Salmon", "Seal", "Sparrow", "Squirrel", "Stoat", "Swan", "Tapir", "Toucan", "Walrus",
    "Weasel", "Wombat", "Wren",
)  # fmt: skip


def generate(taken: Iterable[str], rng: random.Random | None = None) -> str:
    """A new pseudonym "<Adjective><Animal>-<n>" that is not in ``taken`` (case-insensitive)."""
    rng = rng or random.Random()
    lowered = {t.lower() for t in taken}
    stem = rng.choice(ADJECTIVES) + rng.choice(ANIMALS)
    n = 1
    while f"{stem}-{n}".lower() in lowered:
        n += 1
    return f"{stem}-{n}"


def generate_many(count: int, taken: Iterable[str], rng: random.Random | None = None) -> list[str]:
    """``count`` distinct new pseudonyms."""
    rng = rng or random.Random()
    seen = set(taken)
    out = []
    for _ in range(count):
        name = generate(seen, rng)
        seen.add(name)
        out.append(name)
    return out
