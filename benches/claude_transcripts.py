#!/usr/bin/env python3
"""Writes a Claude Code config folder of generated transcripts for benches/spent.sh.

Usage: claude_transcripts.py DIR [MEGABYTES]   (default 104)

The shape is the one measured on published Claude Code transcripts: a median line of about 1 KB
and a 99th percentile of about 24 KB (this writes 1.0 KB and 29 KB), about 36 % of the bytes in
lines that carry usage, each response written one line per content block (thinking, text,
tool_use) with the same `message.id` and `requestId`, the early lines with the partial usage of
that moment (`output_tokens` 1, then the final count on the last line); tool results as large as
the files and commands they return, echoed in `toolUseResult`; bookkeeping lines (file-history
snapshots, system lines, attachments); subagents in `<session>/subagents/agent-<id>.jsonl` with
their `.meta.json`; and one session in ten resumed from the one before, repeating its first lines
(with its own session id; ccusage and ctx count those once). About one word in a hundred is not
ASCII.

Written as `DIR/projects/<project>/<session>.jsonl`; seeded, so every run writes the same bytes.
Prints the figures of what it wrote.
"""

import json
import os
import random
import sys
import time
import uuid

root, megabytes = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 104
rng = random.Random(48)
PROJECTS = [f"-home-user-work-project{n}" for n in range(8)]
MODELS = ["claude-opus-4-5-20251101"] * 5 + ["claude-sonnet-4-5-20250929"] * 4 + ["claude-haiku-4-5-20251001"]
WORDS = ("the a of to in is that for it with as on be this are by from at code test file line "
         "function return value error build change fix check read write run case type struct "
         "impl match self let mut pub fn use crate mod const static async await").split()
# About one word in a hundred is not ASCII, as in English prose and code with a few symbols.
WIDE = "→ é “quoted” ✓ — ≥ café 日本".split()
CORPUS = " ".join(rng.choice(WIDE) if rng.random() < 0.01 else rng.choice(WORDS) for _ in range(400_000))
CODE = "\n".join("    " * rng.randint(0, 3) + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 12)))
                 + rng.choice(["", ";", " {", "}", "\",", " \\n"]) for _ in range(60_000))


def text(n):
    at = rng.randrange(0, len(CORPUS) - n - 1)
    return CORPUS[at:at + n]


def code(n):
    at = rng.randrange(0, len(CODE) - n - 1)
    return CODE[at:at + n]


def heavy(median, cap):
    """A size with a long tail: lognormal around `median`."""
    return max(20, min(cap, int(rng.lognormvariate(0, 1.25) * median)))


def uid():
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def hexid(n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def msgid():
    return "msg_01" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789") for _ in range(22))


class Clock:
    def __init__(self, start):
        self.ms = start

    def tick(self, lo=50, hi=4000):
        self.ms += rng.randint(lo, hi)
        s, ms = divmod(self.ms, 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + f".{ms:03d}Z"


stats = {"bytes": 0, "usage_bytes": 0, "lines": [], "files": 0, "responses": 0, "subagents": 0}


def dump(record):
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


class Transcript:
    def __init__(self, path, session, project, clock, agent=None):
        self.out = open(path, "w", encoding="utf-8")
        self.session, self.project, self.clock, self.agent = session, project, clock, agent
        self.parent = None
        self.cwd = "/home/user/work/" + project.rsplit("-", 1)[-1]
        self.model = rng.choice(MODELS)
        stats["files"] += 1

    def envelope(self, kind, message, **extra):
        record = {"parentUuid": self.parent, "isSidechain": self.agent is not None}
        if self.agent:
            record["agentId"] = self.agent
        record.update({"userType": "external", "cwd": self.cwd, "sessionId": self.session,
                       "version": "2.1.92", "gitBranch": "main", "slug": "generated-bench-session"})
        if message is not None:
            record["message"] = message
        record.update(extra)
        record["type"] = kind
        record["uuid"] = uid()
        record["timestamp"] = self.clock.tick()
        self.parent = record["uuid"]
        return record

    def write(self, record, usage=False):
        line = dump(record)
        self.out.write(line + "\n")
        n = len(line.encode()) + 1
        stats["bytes"] += n
        stats["lines"].append(n)
        if usage:
            stats["usage_bytes"] += n

    def raw(self, line):
        self.out.write(line)
        n = len(line.encode())
        stats["bytes"] += n
        stats["lines"].append(n)
        if '"usage"' in line:
            stats["usage_bytes"] += n

    def prompt(self, words):
        self.write(self.envelope("user", {"role": "user", "content": text(words)}))

    def response(self):
        """One response: its content blocks, one line each, the usage growing as it streams."""
        blocks = []
        if rng.random() < 0.45:
            blocks.append({"type": "thinking", "thinking": text(heavy(600, 9000)),
                           "signature": hexid(rng.randint(300, 900))})
        if rng.random() < 0.8:
            blocks.append({"type": "text", "text": text(heavy(250, 6000))})
        tools = []
        for _ in range(rng.choice([0, 1, 1, 1, 2])):
            tool = rng.choice(["Bash", "Read", "Read", "Edit", "Write", "Grep"])
            if tool == "Bash":
                arg = {"command": text(rng.randint(20, 160)), "description": text(30)}
            elif tool == "Write":
                arg = {"file_path": self.cwd + "/src/" + hexid(6) + ".rs", "content": code(heavy(1500, 24000))}
            elif tool == "Edit":
                arg = {"file_path": self.cwd + "/src/lib.rs", "old_string": code(heavy(300, 4000)),
                       "new_string": code(heavy(350, 4000))}
            else:
                arg = {"file_path": self.cwd + "/src/" + hexid(6) + ".rs"} if tool == "Read" else {"pattern": text(12)}
            tools.append(("toolu_01" + hexid(22), tool))
            blocks.append({"type": "tool_use", "id": tools[-1][0], "name": tool, "input": arg})
        if not blocks:
            blocks.append({"type": "text", "text": text(40)})
        mid, req = msgid(), "req_011C" + hexid(20)
        cache_read = rng.randint(10_000, 180_000)
        cache_write = rng.randint(0, 6000)
        final = rng.randint(40, 2400)
        stats["responses"] += 1
        for k, block in enumerate(blocks):
            last = k == len(blocks) - 1
            usage = {"input_tokens": rng.randint(1, 12), "cache_creation_input_tokens": cache_write,
                     "cache_read_input_tokens": cache_read,
                     "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": cache_write},
                     "output_tokens": final if last else rng.choice([1, 1, 2, 8]), "service_tier": "standard"}
            message = {"model": self.model, "id": mid, "type": "message", "role": "assistant", "content": [block],
                       "stop_reason": "tool_use" if last and tools else None, "stop_sequence": None, "usage": usage}
            self.write(self.envelope("assistant", message, requestId=req), usage=True)
        for tool_id, tool in tools:
            out = code(heavy(2000, 60000)) if tool in ("Read", "Bash", "Grep") else text(rng.randint(40, 200))
            result = {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": out}]}
            echo = {"stdout": out, "stderr": "", "interrupted": False} if tool == "Bash" else \
                {"type": "text", "file": {"filePath": self.cwd + "/src/x.rs", "content": out, "numLines": out.count("\n") + 1}}
            self.write(self.envelope("user", result, toolUseResult=echo))

    def bookkeeping(self):
        roll = rng.random()
        if roll < 0.4:
            snap = {"messageId": uid(), "trackedFileBackups": {
                self.cwd + f"/src/{hexid(6)}.rs": {"backupFileName": hexid(16) + "@v2", "version": 2,
                                                   "backupTime": self.clock.tick(0, 1)} for _ in range(rng.randint(1, 12))},
                "timestamp": self.clock.tick(0, 1)}
            self.raw(dump({"type": "file-history-snapshot", "messageId": snap["messageId"], "snapshot": snap,
                           "isSnapshotUpdate": rng.random() < 0.5}) + "\n")
        elif roll < 0.7:
            self.write(self.envelope("system", None, subtype="stop_hook_summary", hookCount=1,
                                     hookInfos=[{"command": "ctx claude hook stop"}], hookErrors=[],
                                     preventedContinuation=False, stopReason="", hasOutput=False, level="suggestion"))
        else:
            self.write(self.envelope("attachment", None, attachment={"type": "hook_success", "hookName": "PostToolUse:Bash",
                                                                        "content": text(rng.randint(20, 400))}))

    def turns(self, n):
        for _ in range(n):
            if rng.random() < 0.25:
                self.prompt(rng.randint(8, 120))
            self.response()
            if rng.random() < 0.5:
                self.bookkeeping()

    def close(self):
        self.out.close()


budget = megabytes * 1_000_000
clock = Clock(1_780_000_000_000)
previous = None
n = 0
while stats["bytes"] < budget:
    project = PROJECTS[n % len(PROJECTS)]
    session = uid()
    folder = os.path.join(root, "projects", project)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, session + ".jsonl")
    t = Transcript(path, session, project, clock)
    if previous and n % 10 == 9:
        # A resumed session starts with the lines of the one it resumes, under its own id.
        with open(previous, encoding="utf-8") as old:
            for k, line in enumerate(old):
                if k >= 60:
                    break
                t.raw(line.replace(previous_session, session))
    t.prompt(rng.randint(5, 60))
    t.turns(rng.randint(20, 160))
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        agent = hexid(17)
        sub = os.path.join(folder, session, "subagents")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f"agent-{agent}.meta.json"), "w") as meta:
            json.dump({"agentType": rng.choice(["general-purpose", "Explore"]), "description": text(30),
                       "toolUseId": "toolu_01" + hexid(22)}, meta)
        a = Transcript(os.path.join(sub, f"agent-{agent}.jsonl"), session, project, clock, agent)
        a.prompt(rng.randint(20, 200))
        a.turns(rng.randint(5, 50))
        a.close()
        stats["subagents"] += 1
        t.turns(rng.randint(1, 10))
    t.close()
    previous, previous_session = path, session
    n += 1

lines = sorted(stats["lines"])
pick = lambda q: lines[min(len(lines) - 1, int(q * len(lines)))]
print(f"{stats['bytes'] / 1e6:.1f} MB in {stats['files']} files ({n} sessions, {stats['subagents']} subagents), "
      f"{len(lines)} lines, {stats['responses']} responses; {100 * stats['usage_bytes'] / stats['bytes']:.0f} % of the bytes "
      f"in lines with usage; line median {pick(0.5)} B, 99th percentile {pick(0.99)} B")
