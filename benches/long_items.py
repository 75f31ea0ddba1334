"""The work of the long-session benchmarks, benches/long.sh (OpenCode) and benches/pi-long.sh (pi), in one place
so that both run the same items with the same seeded outputs. Imported by their scripts (hence the underscore).

ITEMS: 22 items (frames in long.sh, person turns in pi-long.sh) as (n, size_a, size_b): item n runs two bash calls
printing size_a and size_b characters of made-up build log (benches/fold-output.py). nested(n): every fourth
item has a nested one, whose single bash call prints INNER_SIZE characters.
"""
import random

SEED = 20261127
INNER_SIZE = 12_000


def _items():
    rng = random.Random(SEED)
    return [(n, rng.randrange(10_000, 40_001), rng.randrange(10_000, 40_001)) for n in range(1, 23)]


ITEMS = _items()


def nested(n):
    return n % 4 == 0
