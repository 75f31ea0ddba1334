#!/usr/bin/env python3
"""Reads the stand-in model's request logs of benches/long.sh (or benches/pi-long.sh) and prints a markdown table,
one row per way.

  long-measure.py CTX WAY=REQUESTS_DIR [WAY=REQUESTS_DIR...] [--json FILE]

The measures of benches/fold-measure.py (its header defines them: characters of a request's messages without the
system ones, cacheable prefixes, billed input = not cacheable + 0.1 x the rest), plus:
- compactions: the requests OpenCode sent to summarize the session (they offer no tools, and their system prompt
  is OpenCode's "context summarization agent"; its title request also offers no tools), or pi's (no tools, system
  prompt "You are a context summarization assistant"; when pi splits a turn it sends a second one, for the turn's
  prefix, which is part of the same compaction and not counted again);
- all requests, not cacheable and billed count every request the model was sent, the compactions and titles
  too, for they are input the session is billed for: each of them as the agent's requests are counted (its
  messages without the system ones, served the prefix it shares with the request just before it);
  "compaction input" is what the compactions sent, none of which a cache could serve (their messages differ
  from the request before them from the first characters on, and their system prompt and tools differ too);
- largest request: the most characters of messages any agent request carried;
- tool outputs: the characters of every tool output, each counted once: what any way must send at least once,
  uncached (the floor of "not cacheable").
"""
import glob
import importlib.util
import json
import os
import sys

spec = importlib.util.spec_from_file_location("fold_measure", os.path.join(os.path.dirname(__file__), "fold-measure.py"))
fold = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fold)


def is_compaction(body):
    """A request that summarizes the session for a compaction: OpenCode's, or pi's."""
    if body.get("tools"):
        return False
    system = " ".join(fold.text(m) for m in body.get("messages") or [] if m.get("role") == "system").lower()
    return "summarization agent" in system or "context summarization assistant" in system


def compactions(folder):
    count = 0
    for path in sorted(glob.glob(os.path.join(folder, "[0-9]*[0-9].json"))):
        body = json.load(open(path))
        if not is_compaction(body):
            continue
        words = " ".join(fold.text(m) for m in body.get("messages") or [] if m.get("role") == "user")
        if "This is the PREFIX of a turn that was too large to keep" in words:
            continue  # pi's second summary of a split turn: the same compaction
        count += 1
    return count


def other_requests(folder):
    """The requests that offer no tools (compactions, titles): (characters sent, of them not cacheable, of
    them the compactions'), each served the prefix its messages share with the request just before it."""
    sent = uncached = compaction = 0
    before = ""
    for path in sorted(glob.glob(os.path.join(folder, "[0-9]*[0-9].json"))):
        if os.path.exists(path[:-5] + ".error.txt"):
            continue
        body = json.load(open(path))
        messages = body.get("messages") or []
        text = fold.serialize([m for m in messages if m.get("role") != "system"])
        if not body.get("tools"):
            new = len(text) - fold.common_prefix(before, text)
            sent, uncached = sent + len(text), uncached + new
            if is_compaction(body):
                compaction += len(text)
        before = text
    return sent, uncached, compaction


def tool_outputs(folder):
    seen, total = set(), 0
    for path in sorted(glob.glob(os.path.join(folder, "[0-9]*[0-9].json"))):
        for m in json.load(open(path)).get("messages") or []:
            # The stand-in numbers its calls anew in each run: an output is known by its call and text.
            key = (m.get("tool_call_id"), fold.text(m)[:200])
            if m.get("role") == "tool" and key not in seen:
                seen.add(key)
                total += len(fold.serialize(fold.text(m)))
    return total


def main():
    ctx, ways, json_out = fold.parse_args(sys.argv[1:])
    results = {}
    for name, folder in ways:
        r = fold.measure(ctx, folder)
        if r is not None:
            r["compactions"] = compactions(folder)
            r["largest"] = max(r["sizes"].values())
            sent, uncached, r["compaction_input"] = other_requests(folder)
            r["sent"] += sent
            r["uncached"] += uncached
            r["billed"] = fold.billed(r)
            r["tool_outputs"] = tool_outputs(folder)
        results[name] = r
    base = results.get("plain")

    def base_of(name):
        """The way a way's billed input is a share of: plain's, or plain-todos' for a todo way."""
        return results.get("plain-todos") if name.endswith("-todos") else base
    header = ["way", "agent requests", "compactions", "compaction input", "largest request (characters)",
              "last request", "all requests: characters", "tool outputs", "not cacheable", "billed (vs plain)",
              "refused", "tool errors"]
    print("| " + " | ".join(header) + " |")
    print("|---" + "|---:" * (len(header) - 1) + "|")
    for name, r in results.items():
        if r is None:
            print(f"| {name} | 0 |" + " - |" * (len(header) - 2))
            continue
        cells = [
            name, r["requests"], r["compactions"], f"{r['compaction_input']:,}", f"{r['largest']:,}",
            f"{r['last_chars']:,}",
            f"{r['sent']:,}", f"{r['tool_outputs']:,}", f"{r['uncached']:,}",
            f"{r['billed']:,.0f} ({100 * r['billed'] / base_of(name)['billed']:.1f} %)" if base_of(name) else f"{r['billed']:,.0f}",
            r["refused"], "-" if r["tool_errors"] is None else len(r["tool_errors"]),
        ]
        print("| " + " | ".join(map(str, cells)) + " |")
    print()
    for name, r in results.items():
        for e in (r or {}).get("tool_errors") or []:
            print(f"{name}: tool error in {e}")
    plain, ctx_way, dcp = results.get("plain"), results.get("ctx"), results.get("dcp")
    if plain and ctx_way:
        checks = [
            ("plain OpenCode compacts at least twice", plain["compactions"] >= 2),
            ("ctx never compacts", ctx_way["compactions"] == 0),
            ("ctx's billed input at most half of plain's", ctx_way["billed"] <= 0.5 * plain["billed"]),
            ("ctx's uncached characters at most plain's", ctx_way["uncached"] <= plain["uncached"]),
        ]
        if dcp:
            checks.append(("ctx's billed input below DCP's", ctx_way["billed"] < dcp["billed"]))
        fold.print_targets(checks)
    turns = results.get("turns")
    if plain and turns:
        # The targets for a model that never calls ctx (turn frames and the valve; pi-long.sh's only ways).
        checks = [] if ctx_way else [("plain compacts at least twice", plain["compactions"] >= 2)]
        checks += [
            ("turns: never compacts", turns["compactions"] == 0),
            ("turns: billed input at most half of plain's", turns["billed"] <= 0.5 * plain["billed"]),
            ("nothing refused (plain, turns)", plain["refused"] == turns["refused"] == 0),
        ]
        if dcp:
            checks.append(("turns: billed input at most DCP's", turns["billed"] <= dcp["billed"]))
        fold.print_targets(checks)
    plain_todos, ctx_todos, dcp_todos = (results.get(w) for w in ("plain-todos", "ctx-todos", "dcp-todos"))
    if plain_todos and ctx_todos:
        # The todo workload's targets (a model that never calls ctx but keeps OpenCode's todo list), against
        # plain-todos.
        checks = [
            ("plain-todos compacts at least twice", plain_todos["compactions"] >= 2),
            ("ctx-todos: never compacts", ctx_todos["compactions"] == 0),
            ("ctx-todos: billed input at most half of plain-todos'", ctx_todos["billed"] <= 0.5 * plain_todos["billed"]),
            ("nothing refused (plain-todos, ctx-todos)", plain_todos["refused"] == ctx_todos["refused"] == 0),
        ]
        if dcp_todos:
            checks.append(("ctx-todos: billed input at most dcp-todos'", ctx_todos["billed"] <= dcp_todos["billed"]))
        fold.print_targets(checks)
    if json_out:
        with open(json_out, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
