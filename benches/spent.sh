#!/usr/bin/env bash
# `ctx budget spent` beside ccusage 20.0.24, whole processes in one hyperfine run per workload:
#
# - opencode: a generated OpenCode database of 10 000 sessions and 1 000 000 messages (and a frame
#   tree of one frame per session plus a pushed frame in every root session), beside ccusage's
#   per-session report of the same file. ccusage opens the database for writing (it leaves -wal
#   and -shm beside it), so it reads its own copy.
# - claude: a Claude Code folder of generated transcripts (benches/claude_transcripts.py: 104 MB
#   shaped as published transcripts are, subagents included), read by both tools through
#   CLAUDE_CONFIG_DIR, beside ccusage's native binary (@ccusage/ccusage-linux-x64, which its npm
#   package runs) and its npm launcher, `claude session --json --offline`. Wall time from
#   hyperfine; CPU (user + sys) and peak RSS from /usr/bin/time over RSS_RUNS more runs of each.
#
# Nothing is kept between runs: every process starts from the same files, and --prepare removes
# any cache ccusage could have written under the run's own HOME (with --offline it writes none).
# Needs hyperfine, python3, npm and /usr/bin/time; installs ccusage under target/bench-peers/ from
# the registry npm is configured with.
# Usage: benches/spent.sh [opencode|claude|all] [ARGS]   (default: all)
#        benches/spent.sh opencode [SESSIONS] [MESSAGES_PER_SESSION]   (default: 10000 100)
#        benches/spent.sh claude [MEGABYTES]   (default: 104)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed: apt-get install time" >&2; exit 1; }
workload=${1:-all}
case "$workload" in
  opencode | claude | all) shift $(($# > 0 ? 1 : 0)) ;;
  *) echo "usage: benches/spent.sh [opencode|claude|all] [ARGS]" >&2; exit 2 ;;
esac
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
peers="$PWD/target/bench-peers/ccusage"
if ! grep -qs '"version": "20.0.24"' "$peers/node_modules/ccusage/package.json"; then
  npm install --prefix "$peers" --registry "$(npm config get registry)" --no-audit --no-fund --silent ccusage@20.0.24
fi
launcher="$peers/node_modules/.bin/ccusage"
# npm leaves the native binary without its execute bit; the launcher sets it on its first run.
"$launcher" --version >/dev/null
native=$(find "$peers/node_modules/@ccusage" -path '*/bin/ccusage' -type f -perm -u+x 2>/dev/null | head -n 1)
[ -n "$native" ] || { echo "no runnable native binary of ccusage in $peers/node_modules/@ccusage" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpus=$(nproc)
echo "machine: $cpus CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"

opencode() {
sessions=${1:-10000}
per=${2:-100}
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
HOME="$work" hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json "$work/spent.json" \
  -n "ctx budget spent (per frame)" "$ctx -C $work/project budget spent --source $db --json" \
  -n "ctx budget spent --by session" "$ctx -C $work/project budget spent --source $db --by session --json" \
  -n "ccusage opencode session" "XDG_DATA_HOME=$work/ccusage $launcher opencode session --json --offline"
python3 - "$work/spent.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
peer = rows[-1]["median"]
for r in rows:
    print(f"{r['command']:34} median {r['median'] * 1000:8.1f} ms   {peer / r['median']:5.1f}x ccusage")
PY
}

claude() {
megabytes=${1:-104}
home="$work/home"
config="$home/.claude"
mkdir -p "$home/.cache/opencode" "$work/project"
python3 benches/claude_transcripts.py "$config" "$megabytes"
du -sh "$config/projects"
# The models.dev prices of the generated transcripts' models, so that ctx prices every call, as
# ccusage does from the prices it carries (--offline).
cat >"$home/.cache/opencode/models.json" <<'JSON'
{"anthropic": {"id": "anthropic", "models": {
  "claude-opus-4-5-20251101": {"id": "claude-opus-4-5-20251101", "cost": {"input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25}},
  "claude-sonnet-4-5-20250929": {"id": "claude-sonnet-4-5-20250929", "cost": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75,
    "context_over_200k": {"input": 6, "output": 22.5, "cache_read": 0.6, "cache_write": 7.5}}},
  "claude-haiku-4-5-20251001": {"id": "claude-haiku-4-5-20251001", "cost": {"input": 1, "output": 5, "cache_read": 0.1, "cache_write": 1.25}}}}}
JSON
# Every tool reads the same folder: ccusage all of CLAUDE_CONFIG_DIR's projects, ctx the same
# folder given as its source (without it, ctx reads the current project's only).
export HOME="$home" CLAUDE_CONFIG_DIR="$config" XDG_CACHE_HOME="$home/.cache" XDG_CONFIG_HOME="$home/.config"
names=("ctx budget spent --by session" "ctx budget spent (per frame)" "ccusage native claude session" "ccusage npm claude session")
commands=(
  "$ctx -C $work/project budget spent --source $config/projects --by session --json"
  "$ctx -C $work/project budget spent --source $config/projects --json"
  "$native claude session --json --offline"
  "$launcher claude session --json --offline"
)
# Both read the same calls: the token totals must agree.
python3 - <(${commands[0]} 2>/dev/null) <(${commands[2]}) <<'PY'
import json, sys
ctx, peer = (json.load(open(path)) for path in sys.argv[1:3])
print(f"tokens: ctx {ctx['total']['tokens']['total']} in {ctx['total']['calls']} calls, ccusage {peer['totals']['totalTokens']}")
PY
args=()
for k in "${!names[@]}"; do args+=(-n "${names[$k]}" "${commands[$k]} >/dev/null 2>&1"); done
hyperfine --warmup 2 --runs "${RUNS:-15}" --prepare "rm -rf $home/.cache/ccusage" --export-json "$work/claude.json" "${args[@]}"
: >"$work/rss"
for k in "${!names[@]}"; do
  for _ in $(seq "${RSS_RUNS:-5}"); do
    /usr/bin/time -f "$k %M %U %S" -a -o "$work/rss" sh -c "${commands[$k]} >/dev/null 2>&1"
  done
done
python3 - "$work/claude.json" "$work/rss" "$cpus" <<'PY'
import json, statistics, sys
rows = json.load(open(sys.argv[1]))["results"]
runs = {}
for line in open(sys.argv[2]):
    k, rss, user, sys_ = line.split()
    runs.setdefault(int(k), []).append((int(rss), float(user) + float(sys_)))
native = rows[2]["median"]
print(f"{'command':34} {'median wall':>12} {'user+sys':>10} {'peak RSS':>9}   vs native ccusage")
for k, r in enumerate(rows):
    cpu = r["user"] + r["system"]
    rss = statistics.median(x[0] for x in runs[k]) / 1024
    cpu_time = statistics.median(x[1] for x in runs[k])
    print(f"{r['command']:34} {r['median'] * 1000:9.1f} ms {cpu * 1000:7.0f} ms {rss:6.1f} MB   "
          f"{native / r['median']:4.2f}x (time: {cpu_time * 1000:.0f} ms CPU)")
print("user+sys: hyperfine's means; peak RSS: the median of the runs under /usr/bin/time, whose CPU is beside")
PY
}

case "$workload" in
  opencode) opencode "$@" ;;
  claude) claude "$@" ;;
  all) claude && opencode ;;
esac
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
