#!/usr/bin/env python3
"""Many agents on one frame tree: the load driver of benches/load.sh.

Each build given with --ctx NAME=PATH gets its own copy of a generated state (FRAMES frames, SESSIONS
OpenCode sessions) and runs two loads on it, one build after the other, each command a whole `ctx`
process timed from spawn to exit:

  closed loop  CLIENTS clients share PAIRS push+pop pairs and run them back to back, as fast as they
               are served (each client acts for session i % SESSIONS);
  open loop    AGENTS agents start a push+pop pair on a schedule, together RATE operations a second,
               for DURATION seconds, whatever the latency (a late agent starts its next pair at once).

Prints, per build, load and command: operations, throughput, p50/p90/p99/max latency and failures;
then checks the state: every frame whose push succeeded is there, and completed if its pop succeeded.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time


def make_state(path, frames, sessions, seed):
    """A Flame state of `frames` frames: `sessions` session frames (the first a root, the others its
    children, as subagents are), the rest finished work spread under them in chains of up to 8."""
    rng = random.Random(seed)
    t = 1795338000000
    docs, roots, session_ids = {}, [], []

    def add(fid, parent, status, goal):
        nonlocal t
        f = {"sessionID": fid}
        if parent:
            f["parentSessionID"] = parent
        f.update({"status": status, "goal": goal, "createdAt": t, "updatedAt": t,
                  "artifacts": [f"src/m{len(docs) % 97}.rs"], "decisions": ["keep it simple"]})
        if status == "completed":
            f["compactionSummary"] = "Did the work; tests pass and the docs are updated."
            f["logPath"] = f"logs/frame-{fid}.md"
        docs[fid] = f
        t += 1

    for s in range(sessions):
        sid = f"ses_load{s:04d}abcdefghijklmnop"
        add(sid, session_ids[0] if s else None, "in_progress", f"Session {s}: a subagent's task")
        session_ids.append(sid)
        if s == 0:
            roots.append(sid)
    n = 0
    while len(docs) < frames:
        parent = rng.choice(session_ids)
        for _ in range(rng.randint(1, 8)):
            if len(docs) >= frames:
                break
            fid = f"fr_load{n:07d}x"
            add(fid, parent, "completed", f"Goal number {n}: do the thing well")
            parent = fid
            n += 1
    doc = {"version": 1, "frames": docs, "activeFrameID": session_ids[0], "rootFrameIDs": roots,
           "updatedAt": t}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write(json.dumps(doc, indent=2) + "\n")
    return session_ids


class Recorder:
    """Latencies and failures of each command, from any thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.times = {"push": [], "pop": []}
        self.failures = {"push": [], "pop": []}
        self.pushed = []  # ids printed by successful pushes
        self.popped = []  # ids of successful pops

    def run(self, ctx, root, command, args):
        start = time.perf_counter()
        out = subprocess.run([ctx, "-C", root, "frame", command, *args],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        with self.lock:
            if out.returncode == 0:
                self.times[command].append(elapsed)
            else:
                line = (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[0]
                self.failures[command].append(line)
        return out.stdout.strip() if out.returncode == 0 else None

    def pair(self, ctx, root, session, label):
        fid = self.run(ctx, root, "push", ["--session", session, "--parent", session, f"Load {label}"])
        if fid is None:
            return
        with self.lock:
            self.pushed.append(fid)
        if self.run(ctx, root, "pop", ["--session", session, "--frame", fid,
                                       "--summary", f"Done {label}"]) is not None:
            with self.lock:
                self.popped.append(fid)


def closed_loop(ctx, root, sessions, clients, pairs):
    rec = Recorder()
    counter = iter(range(pairs))
    take = threading.Lock()

    def client(i):
        while True:
            with take:
                n = next(counter, None)
            if n is None:
                return
            rec.pair(ctx, root, sessions[i % len(sessions)], f"c{i}-{n}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return rec, time.perf_counter() - start


def open_loop(ctx, root, sessions, agents, rate, duration, seed):
    rec = Recorder()
    period = agents * 2 / rate  # each agent's pair is two operations
    rng = random.Random(seed)
    phases = [rng.uniform(0, period) for _ in range(agents)]
    start = time.perf_counter() + 0.2

    def agent(i):
        k = 0
        while True:
            due = start + phases[i] + k * period
            if due - start >= duration:
                return
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            rec.pair(ctx, root, sessions[i % len(sessions)], f"a{i}-{k}")
            k += 1

    threads = [threading.Thread(target=agent, args=(i,)) for i in range(agents)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return rec, time.perf_counter() - start


def percentile(sorted_values, p):
    """Nearest-rank percentile."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


def check(state_path, before, rec):
    """What was lost: pushed frames missing, popped frames not completed, frames counted wrong."""
    doc = json.load(open(state_path))
    frames = doc["frames"]
    missing = [f for f in rec.pushed if f not in frames]
    unfinished = [f for f in rec.popped if f in frames and frames[f]["status"] != "completed"]
    extra = len(frames) - before - len(rec.pushed)
    return missing, unfinished, extra


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def measure(a, work, template, sessions, name, ctx, load):
    """Runs `load` with the build `ctx` on a fresh copy of the state; prints its rows and returns
    what went wrong."""
    root = os.path.join(work, f"{name}-{load}")
    shutil.copytree(template, root)
    if load == "closed":
        rec, wall = closed_loop(ctx, root, sessions, a.clients, a.pairs)
        what = f"closed, {a.clients} clients"
    elif load == "open":
        rec, wall = open_loop(ctx, root, sessions, a.agents, a.rate, a.duration, a.seed)
        what = f"open, {a.agents} agents at {a.rate:g}/s"
    else:
        sys.exit(f"unknown load {load!r}")
    total = sum(len(v) for v in rec.times.values())
    for command in ("push", "pop"):
        t = sorted(rec.times[command])
        fails = len(rec.failures[command])
        p50, p99 = percentile(t, 50), percentile(t, 99)
        print(f"| {name} | {what} | {command} | {len(t)} | {len(t) / wall:.1f} | {ms(p50)} "
              f"| {ms(percentile(t, 90))} | {ms(p99)} | {ms(t[-1] if t else float('nan'))} "
              f"| {p99 / p50:.1f} | {fails} |")
    print(f"| {name} | {what} | all | {total} | {total / wall:.1f} | | | | | | "
          f"{sum(len(v) for v in rec.failures.values())} |", flush=True)
    problems = []
    missing, unfinished, extra = check(os.path.join(root, ".opencode/flame/state.json"), a.frames, rec)
    for command, lines in rec.failures.items():
        for line in sorted(set(lines)):
            problems.append(f"{name} {load} {command}: {lines.count(line)}x {line}")
    if missing or unfinished or extra:
        problems.append(f"{name} {load}: LOST {len(missing)} pushed frames, {len(unfinished)} "
                        f"pops not recorded, {extra} frames unaccounted for")
    shutil.rmtree(root)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ctx", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--agents", type=int, default=60)
    ap.add_argument("--rate", type=float, default=70.0, help="operations a second, all agents together")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of open loop")
    ap.add_argument("--loads", default="closed,open")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run everything this many times, the builds in reverse order every other round")
    ap.add_argument("--dir", default=None, help="where the states are made (default: a temp dir)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    builds = [spec.split("=", 1) for spec in a.ctx]
    work = tempfile.mkdtemp(prefix="ctx-load.", dir=a.dir)
    template = os.path.join(work, "template")
    sessions = make_state(os.path.join(template, ".opencode/flame/state.json"), a.frames, a.sessions, a.seed)
    size = os.path.getsize(os.path.join(template, ".opencode/flame/state.json"))
    print(f"state: {a.frames} frames, {a.sessions} sessions, {size} bytes; {os.cpu_count()} cores")
    print()
    print("| build | load | command | ops | ops/s | p50 | p90 | p99 | max | p99/p50 | failures |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    problems = []
    try:
        for round_ in range(a.rounds):
            for load in a.loads.split(","):
                for name, ctx in builds if round_ % 2 == 0 else builds[::-1]:
                    problems += measure(a, work, template, sessions, name, ctx, load)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    if problems:
        print("\n".join(problems))
    else:
        print("nothing lost, nothing refused")
    if any("LOST" in p for p in problems):
        sys.exit(1)


if __name__ == "__main__":
    main()
