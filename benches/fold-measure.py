#!/usr/bin/env python3
"""Reads the stand-in model's request logs of benches/fold.sh and prints one markdown table row per way.

  fold-measure.py CTX WAY=REQUESTS_DIR [WAY=REQUESTS_DIR...] [--json FILE]

Only the agent's requests are measured (those that offer tools; OpenCode's title request offers none), in the
order the stand-in received them. A request's "messages" are its `messages` without the system ones, serialized
as compact JSON (non-ASCII kept); every size below is counted on that text:
- last request: its characters, and its o200k tokens (counted by `CTX budget estimate --tokenizer o200k`);
- prefix breaks: requests whose messages do not start with the previous request's whole message list, each
  given as REQUEST@INDEX, INDEX being the first message that differs (0 = the session's first message);
- cacheable: for each request after the first, the length of the common prefix of its serialized messages with
  the previous request's (what a provider's prefix cache could serve); the sum of those over the sum of the
  requests' lengths (the share of all characters sent), and the mean of the requests' own shares; also the
  characters of all requests together and those of them no prefix cache could serve (each request's length
  minus its common prefix with the request before; the first request's whole length);
- billed: what the input would be billed as, in characters at the full price, where a provider's cache
  reads cost a tenth of fresh input (Anthropic's prices): not cacheable + 0.1 x the rest; and its share of
  plain's;
- system/tools changes: requests whose system prompt or tool list differs from the previous request's (a
  provider's prefix cache starts with them, so each change makes the whole request uncached);
- refused: requests the strict stand-in refused (REQUESTS_DIR/NNNN.error.txt);
- tool errors: tool calls that OpenCode recorded as failed (status "error", or a call of an unknown tool, which
  OpenCode turns into its `invalid` tool), read from the sandbox's opencode.db beside REQUESTS_DIR; or, for pi
  (benches/pi-long.sh), the tool results pi stored with isError, read from its session files in pi-sessions/
  beside REQUESTS_DIR;
- outputs still sent: how many of the session's `bash` outputs (each recognised by its first 200 characters)
  the last request still carries.
"""
import glob
import json
import os
import sqlite3
import subprocess
import sys


def serialize(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def text(message):
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def tokens(ctx, data):
    out = subprocess.run([ctx, "budget", "estimate", "--tokenizer", "o200k", "--format", "json", "-"],
                         input=data.encode(), capture_output=True, check=True).stdout
    return json.loads(out)["total_tokens"]


def common_prefix(a, b):
    n = min(len(a), len(b))
    lo, hi = 0, n
    # Binary search on prefix equality: fast on the 100 000-character strings of the later requests.
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def measure(ctx, folder):
    refused = len(glob.glob(os.path.join(folder, "*.error.txt")))
    requests = []
    for path in sorted(glob.glob(os.path.join(folder, "[0-9]*[0-9].json"))):
        if os.path.exists(path[:-5] + ".error.txt"):
            continue
        body = json.load(open(path))
        if not body.get("tools"):
            continue
        messages = body.get("messages") or []
        requests.append({
            "name": os.path.basename(path)[:-5],
            "messages": [m for m in messages if m.get("role") != "system"],
            "head": serialize([[m for m in messages if m.get("role") == "system"], body.get("tools")]),
        })
    if not requests:
        return None
    breaks, shares, head_changes, errors, seen, outputs = [], [], 0, [], set(), []
    served = sent = 0
    bash_calls = set()
    for i, r in enumerate(requests):
        r["text"] = serialize(r["messages"])
        for m in r["messages"]:
            for c in m.get("tool_calls") or []:
                if c.get("function", {}).get("name") == "bash":
                    bash_calls.add(c.get("id"))
            if m.get("role") == "tool" and m.get("tool_call_id") not in seen:
                seen.add(m.get("tool_call_id"))
                if m.get("tool_call_id") in bash_calls:
                    outputs.append(serialize(text(m)[:200])[1:-1])
        if i == 0:
            continue
        before = requests[i - 1]
        if r["head"] != before["head"]:
            head_changes += 1
        prev, cur = before["messages"], r["messages"]
        if cur[:len(prev)] != prev:
            at = next((k for k in range(len(prev)) if k >= len(cur) or cur[k] != prev[k]), len(prev))
            breaks.append(f"{r['name']}@{at}")
        prefix = common_prefix(before["text"], r["text"])
        served, sent = served + prefix, sent + len(r["text"])
        shares.append(prefix / max(1, len(r["text"])))
    db = os.path.join(folder, "..", "data", "opencode", "opencode.db")
    pi_sessions = os.path.join(folder, "..", "pi-sessions")
    if os.path.isdir(pi_sessions):
        for path in sorted(glob.glob(os.path.join(pi_sessions, "**", "*.jsonl"), recursive=True)):
            for line in open(path):
                message = (json.loads(line) if line.strip() else {}).get("message") or {}
                if message.get("role") == "toolResult" and message.get("isError"):
                    problem = text(message)
                    errors.append(f"{message.get('toolName')} {message.get('toolCallId')}: {problem[:200]!r}")
    elif os.path.exists(db):
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            for (data,) in con.execute("SELECT data FROM part"):
                part = json.loads(data)
                state = part.get("state") or {}
                if part.get("type") == "tool" and (state.get("status") == "error" or part.get("tool") == "invalid"):
                    problem = state.get("error") or (state.get("input") or {}).get("error") or ""
                    errors.append(f"{part.get('tool')} {part.get('callID')}: {problem[:200]!r}")
    else:
        errors = None
    last = requests[-1]
    for r in requests:
        r["chars"] = len(r["text"])
    return {
        "sizes": {r["name"]: r["chars"] for r in requests},
        "requests": len(requests),
        "refused": refused,
        "last_chars": len(last["text"]),
        "last_tokens": tokens(ctx, last["text"]),
        "last_messages": len(last["messages"]),
        "breaks": breaks,
        "breaks_at_0": sum(1 for b in breaks if b.endswith("@0")),
        "sent": sent + len(requests[0]["text"]),
        "uncached": sent + len(requests[0]["text"]) - served,
        "cacheable": served / sent if sent else 0.0,
        "cacheable_mean": sum(shares) / len(shares) if shares else 0.0,
        "head_changes": head_changes,
        "tool_errors": errors,
        "outputs": len(outputs),
        "outputs_still_sent": sum(1 for o in outputs if o in last["text"]),
    }


def billed(r):
    """Input billed at cache prices, in full-price characters: a cache read costs a tenth."""
    return r["uncached"] + 0.1 * (r["sent"] - r["uncached"])


def parse_args(argv):
    """CTX WAY=REQUESTS_DIR... [--json FILE]: the ctx binary, the (way, folder) pairs, the JSON file or None."""
    args = list(argv)
    json_out = None
    if "--json" in args:
        k = args.index("--json")
        json_out = args[k + 1]
        del args[k:k + 2]
    return args[0], [a.split("=", 1) for a in args[1:]], json_out


def print_targets(checks, label="targets"):
    """One line of targets, each (what, met); benches/long-measure.py prints its own with it too."""
    print(f"{label}: " + "; ".join(f"{what}: {'yes' if ok else 'NO'}" for what, ok in checks))


def main():
    ctx, ways, json_out = parse_args(sys.argv[1:])
    results = {name: measure(ctx, folder) for name, folder in ways}
    base = results.get("plain")
    header = ["way", "agent requests", "last request: characters", "o200k tokens", "vs plain",
              "prefix breaks (at message 0)", "cacheable share (of all; mean per request)",
              "all requests: characters", "not cacheable", "billed (vs plain)", "system/tools changes",
              "bash outputs still sent", "refused", "tool errors"]
    print("| " + " | ".join(header) + " |")
    print("|---" + "|---:" * (len(header) - 1) + "|")
    for name, r in results.items():
        if r is None:
            print(f"| {name} | 0 |" + " - |" * (len(header) - 2))
            continue
        cells = [
            name, r["requests"], f"{r['last_chars']:,}", f"{r['last_tokens']:,}",
            f"{100 * r['last_chars'] / base['last_chars']:.0f} %" if base else "-",
            f"{len(r['breaks'])} ({r['breaks_at_0']})",
            f"{100 * r['cacheable']:.0f} % ({100 * r['cacheable_mean']:.0f} %)",
            f"{r['sent']:,}", f"{r['uncached']:,}",
            f"{billed(r):,.0f} ({100 * billed(r) / billed(base):.0f} %)" if base else f"{billed(r):,.0f}",
            r["head_changes"],
            f"{r['outputs_still_sent']} of {r['outputs']}", r["refused"],
            "-" if r["tool_errors"] is None else len(r["tool_errors"]),
        ]
        print("| " + " | ".join(map(str, cells)) + " |")
    print()
    for name, r in results.items():
        if r and r["breaks"]:
            print(f"{name}: prefix breaks at (request@first differing message) {', '.join(r['breaks'])}")
        for e in (r or {}).get("tool_errors") or []:
            print(f"{name}: tool error in {e}")
    plain, ctx_way, dcp = results.get("plain"), results.get("ctx"), results.get("dcp")
    if plain and ctx_way and dcp:
        # The targets for ctx (three frames, each pushed and popped once: six pushes and pops).
        checks = [
            ("last request at most 10 % of plain's", ctx_way["last_chars"] <= 0.10 * plain["last_chars"]),
            ("last request no larger than DCP's", ctx_way["last_chars"] <= dcp["last_chars"]),
            ("prefix breaks at most the 6 pushes and pops", len(ctx_way["breaks"]) <= 6),
            ("no prefix break at message 0", ctx_way["breaks_at_0"] == 0),
            ("cacheable share at least plain's minus 5 points", ctx_way["cacheable"] >= plain["cacheable"] - 0.05),
        ]
        print()
        print_targets(checks, "ctx targets")
    if json_out:
        with open(json_out, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
