#!/usr/bin/env bash
# `ctx budget spent` on a generated OpenCode database of 10 000 sessions and 1 000 000 messages
# (and a frame tree of one frame per session plus a pushed frame in every root session), whole
# processes in one hyperfine run beside ccusage 20.0.24's per-session report of the same file.
# ccusage opens the database for writing (it leaves -wal and -shm beside it), so it reads its own
# copy. Needs hyperfine, python3 and npm; installs ccusage under target/bench-peers/.
# Usage: benches/spent.sh [SESSIONS] [MESSAGES_PER_SESSION]   (default: 10000 100)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
sessions=${1:-10000}
per=${2:-100}
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
peers="$PWD/target/bench-peers/ccusage"
if ! grep -qs '"version": "20.0.24"' "$peers/node_modules/ccusage/package.json"; then
  npm install --prefix "$peers" --no-audit --no-fund --silent ccusage@20.0.24
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ctx/opencode" "$work/ccusage/opencode" "$work/project/.opencode/flame"

python3 - "$PWD/tests/fixtures/spent/opencode-1.18.33.db" "$work" "$sessions" "$per" <<'PY'
import json, random, sqlite3, sys
fixture, work, sessions, per = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
schema = sqlite3.connect(f"file:{fixture}?immutable=1", uri=True).execute(
    "select sql from sqlite_master where sql is not null and (name in ('project', 'session', 'message') "
    "or (type = 'index' and tbl_name in ('session', 'message'))) order by type desc").fetchall()
db = sqlite3.connect(f"{work}/ctx/opencode/opencode.db")
db.execute("pragma journal_mode = wal")
for (sql,) in schema:
    db.execute(sql)
rng = random.Random(7)
t0 = 1795000000000
frames = {}
def sid(n): return f"ses_{0xffffffffffff - n:012x}Bench{n:09d}"
def mid(n): return f"msg_{n:012x}Bench{n:09d}"
m = 0
for s in range(sessions):
    root = s % 5 == 0
    parent = None if root else sid(s - s % 5)
    created = t0 + s * 60_000
    db.execute("insert into session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) values (?,?,?,?,?,?,?,?,?)",
               (sid(s), "global", parent, "bench", "/bench", f"Session {s}", "1.18.33", created, created + per * 500))
    rows = []
    for k in range(per):
        t = created + k * 500
        if k % 2 == 0:
            data = {"role": "user", "time": {"created": t}, "agent": "build", "model": {"providerID": "mock", "modelID": "mock-1"}}
        else:
            inp, out, cached = rng.randint(1000, 90000), rng.randint(1, 2000), rng.randint(0, 50000)
            cost = 0 if s % 7 == 0 else round((inp * 3 + out * 15 + cached * 0.3) / 1e6, 6)
            data = {"role": "assistant", "parentID": mid(m - 1), "mode": "build", "agent": "build",
                    "path": {"cwd": "/bench", "root": "/bench"}, "cost": cost,
                    "tokens": {"total": inp + out + cached, "input": inp, "output": out, "reasoning": 0, "cache": {"read": cached, "write": 0}},
                    "modelID": "mock-1" if s % 7 else "free-1", "providerID": "mock" if s % 7 else "free",
                    "time": {"created": t, "completed": t + 400}, "finish": "stop"}
        rows.append((mid(m), sid(s), t, t, json.dumps(data, separators=(",", ":"))))
        m += 1
    db.executemany("insert into message (id, session_id, time_created, time_updated, data) values (?,?,?,?,?)", rows)
    frames[sid(s)] = {"sessionID": sid(s), "status": "completed", "goal": f"Session {s}",
                      "createdAt": created, "updatedAt": created + per * 500, "artifacts": [], "decisions": []}
    if parent:
        frames[sid(s)]["parentSessionID"] = parent
    else:
        push = f"fr_bench{s:08d}"
        frames[push] = {"sessionID": push, "parentSessionID": sid(s), "status": "completed", "goal": f"Pushed in {s}",
                        "createdAt": created + per * 100, "updatedAt": created + per * 300, "artifacts": [], "decisions": []}
db.commit()
db.execute("pragma wal_checkpoint(truncate)")
db.close()
roots = [k for k, f in frames.items() if "parentSessionID" not in f]
json.dump({"version": 1, "frames": frames, "rootFrameIDs": roots, "updatedAt": t0}, open(f"{work}/project/.opencode/flame/state.json", "w"))
print(f"{sessions} sessions, {m} messages, {len(frames)} frames")
PY
cp "$work/ctx/opencode/opencode.db" "$work/ccusage/opencode/opencode.db"
ls -l "$work/ctx/opencode/opencode.db"
db="$work/ctx/opencode/opencode.db"
export HOME="$work"  # no models.dev cache, no user settings
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json "$work/spent.json" \
  -n "ctx budget spent (per frame)" "$ctx -C $work/project budget spent --source $db --json" \
  -n "ctx budget spent --by session" "$ctx -C $work/project budget spent --source $db --by session --json" \
  -n "ccusage opencode session" "XDG_DATA_HOME=$work/ccusage $peers/node_modules/.bin/ccusage opencode session --json --offline"
python3 - "$work/spent.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
peer = rows[-1]["median"]
for r in rows:
    print(f"{r['command']:34} median {r['median'] * 1000:8.1f} ms   {peer / r['median']:5.1f}x ccusage")
PY
