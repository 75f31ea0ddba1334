#!/usr/bin/env bash
# Measures (and refits) the calibrated token estimate of `ctx budget estimate --tokenizer auto`
# against exact o200k_base counts on a corpus of real text:
#   - the cargo registry's crate sources ($CARGO_HOME/registry/src),
#   - Python's standard library (the newest /usr/lib/python3.*),
#   - /usr/share/doc,
#   - the npm dependency tree of repomix (installed into a scratch directory),
#   - 300 generated files of base64 and hex (fixed seed).
# Prints, per content class, the held-out error of a fresh fit and of the weights ctx ships.
#
# Usage: scripts/budget-calibrate.sh        Needs cargo, python3 with numpy, and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dirs=("${CARGO_HOME:-$HOME/.cargo}/registry/src")
python=$(ls -d /usr/lib/python3.[0-9]* 2>/dev/null | sort -V | tail -1 || true)
[ -n "$python" ] && dirs+=("$python")
[ -d /usr/share/doc ] && dirs+=(/usr/share/doc)
if npm install --silent --prefix "$work/npm" repomix >/dev/null 2>&1; then
  dirs+=("$work/npm/node_modules")
else
  echo "npm install failed: the corpus has no npm tree" >&2
fi

python3 - "$work/encoded" <<'PY'
import base64, os, random, sys
out = sys.argv[1]
os.makedirs(out)
rng = random.Random(20261122)
for i in range(300):
    data = rng.randbytes(rng.randint(200, 200_000))
    if i % 2:
        text, name = data.hex(), f"blob{i}.hex"
    else:
        text, name = base64.b64encode(data).decode(), f"blob{i}.b64"
    # Wrapped like most encoded data in files: 76 columns.
    lines = [text[j:j + 76] for j in range(0, len(text), 76)]
    open(os.path.join(out, name), "w").write("\n".join(lines) + "\n")
PY
dirs+=("$work/encoded")

cargo run --quiet --release --example budget_calibrate -- "${dirs[@]}" > "$work/features.csv"
echo "corpus: ${dirs[*]}"
python3 - "$work/features.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if int(r["o200k"]) >= 20]
print(f"{len(rows)} files of at least 20 tokens, {sum(int(r['bytes']) for r in rows) / 1e6:.0f} MB")
PY
python3 scripts/budget-calibrate.py "$work/features.csv"
