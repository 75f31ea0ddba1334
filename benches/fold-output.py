#!/usr/bin/env python3
"""Prints about 20 000 characters of a made-up build log for benches/fold.sh: the large tool output each
scripted `bash` call reads. Seeded by its arguments, so every way of the benchmark sees the same text, and
varied (paths, numbers, words) so that it tokenizes like real output rather than like one repeated character.

  fold-output.py FRAME CALL [CHARS]
"""
import random
import sys

frame, call = sys.argv[1], sys.argv[2]
size = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000
rng = random.Random(f"{frame}/{call}")
modules = ["billing", "refunds", "ledger", "invoices", "events", "tax", "audit", "payouts", "currency", "reports"]
words = ("amount cents total line item refund invoice customer ledger entry event handler retry queue balance "
         "currency rate rounding negative positive partial full status pending settled failed expected found "
         "value field struct impl trait async await result error option none some match return").split()
levels = ["ok", "ok", "ok", "warning", "note", "error"]
lines, length = [], 0
while length < size:
    module = rng.choice(modules)
    kind = rng.random()
    if kind < 0.45:
        line = (f"test {module}::{rng.choice(words)}_{rng.choice(words)}_{rng.randrange(100)} ... "
                f"{rng.choice(levels)} ({rng.randrange(1, 900)} ms)")
    elif kind < 0.8:
        line = (f"src/{module}/{rng.choice(words)}.rs:{rng.randrange(1, 1200)}:{rng.randrange(1, 80)}: "
                f"{rng.choice(levels)}: {' '.join(rng.choice(words) for _ in range(rng.randrange(4, 11)))}")
    else:
        line = (f"  {rng.choice(words)}_{rng.randrange(1000)} = {rng.randrange(-99999, 99999)} "
                f"({rng.choice(words)}: {rng.randrange(10**6):06d}, {rng.choice(words)}: {rng.random():.4f})")
    lines.append(line)
    length += len(line) + 1
print("\n".join(lines)[:size])
