"""Copies 50 MB of *.rs files from the cargo registry's sources (argv[1]), in path order and
with their relative paths, into argv[2]: the tree the budget benchmarks count."""
import os
import shutil
import sys

src, dst = sys.argv[1], sys.argv[2]
files = []
for root, dirs, names in os.walk(src):
    dirs.sort()
    for n in sorted(names):
        if n.endswith(".rs"):
            files.append(os.path.join(root, n))
total = 0
for f in files:
    size = os.path.getsize(f)
    if size == 0 or size > 1_000_000:
        continue
    target = os.path.join(dst, os.path.relpath(f, src))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(f, target)
    total += size
    if total >= 50_000_000:
        break
print(f"tree: {total} bytes of Rust source")
