#!/usr/bin/env python3
"""Measures benches/claude-fold.sh's request logs: what each way sent to the model and what a prompt cache bills.

  claude-fold-measure.py WORK WORKLOAD [--check]

WORK/WORKLOAD/WAY/requests-STEP/NNNN.json are the requests of each way (plain, fork, bash), STEP 1 the first
process, 2 and on each `--continue`. Prints a markdown table per workload, with the targets each way meets, and
with --check exits 1 when one is not met (the last request at most 10 % of plain's, the billed input below
plain's, no refused request, a fork's first request holding its parent's request whole before its own part).

Definitions:
- last request: the characters of the last request's `messages` (JSON, as Claude Code sent them).
- billed: the input as a prompt cache bills it, in characters at the full price: what no cache serves plus a
  tenth of what it serves (a cache read costs a tenth of fresh input at Anthropic's prices; the 1.25x of a
  cache write and the cache's 5-minute life are not counted). A request is a sequence of blocks: each tool,
  each system block, each content block of each message (a string content is one text block). A cache entry is
  written where a request marks a block with `cache_control`; a later request is served the longest such
  prefix of an earlier request that it starts with, block for block, the marker itself not counted (the
  API's cache key leaves it out), and no more than 20 blocks before one of its own markers (the API's
  look-back). "messages" counts only the blocks of `messages`; "whole" counts the tools and the system prompt
  too, which every request re-sends.
- Claude Code's billing line (`x-anthropic-billing-header: …`, the system prompt's first block) is outside the
  key: against Anthropic's own API, Claude Code 2.1.328 writes into it the previous request's id (`cc_prev_req`),
  the prompt's id and the prompt's and turn's index, so a key that held it would serve no request at all. The
  stand-in's line (no such fields, since its address is not Anthropic's) changes only for a subagent
  (`cc_is_subagent=true`): the row "fork, billing line in the key" shows what a key holding it would bill.
- fork's prefix: the first fork request against the parent's request just before it, block for block: where
  the two first differ, in the system prompt or in `messages` (index and role).
"""
import glob
import json
import os
import re
import sys

WAYS = ("plain", "fork", "bash", "turns")
LOOKBACK = 20
# The last request's share of plain's that a way must not pass (15 % for turn frames, which fold without the model's help).
LIMITS = {"turns": 0.15}


BILLING = "x-anthropic-billing-header:"


def blocks(body, billing_keyed=True):
    """The request as (part, key, chars, marked) blocks: part is "tools", "system" or "messages". With
    `billing_keyed` false, Claude Code's billing line (the system prompt's first block, which says whether the
    request is a subagent's) is taken as outside the cache key."""
    out = []

    def add(part, value, marked, start=None):
        clean = {k: v for k, v in value.items() if k != "cache_control"} if isinstance(value, dict) else value
        keyed = clean
        if not billing_keyed and isinstance(clean, dict) and str(clean.get("text", "")).startswith(BILLING):
            keyed = BILLING
        key = json.dumps([start, keyed], ensure_ascii=False, sort_keys=True)
        out.append((part, key, len(json.dumps(clean, ensure_ascii=False)), marked))

    for tool in body.get("tools") or []:
        add("tools", tool, "cache_control" in tool)
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    for block in system:
        add("system", block, "cache_control" in block)
    for n, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for i, block in enumerate(content or []):
            # A message's first block carries its role: two messages are not one with their blocks together.
            add("messages", block, isinstance(block, dict) and "cache_control" in block,
                start=message.get("role") if i == 0 else None)
    return out


def served(request, earlier):
    """How many of `request`'s first blocks a cache written by the `earlier` requests serves."""
    marks = [n + 1 for n, b in enumerate(request) if b[3]] or [len(request)]
    best = 0
    for other in earlier:
        same = 0
        for a, b in zip(request, other):
            if a[1] != b[1]:
                break
            same += 1
        for end in (n + 1 for n, b in enumerate(other) if b[3]):
            if end <= same and end > best and any(end <= m and m - end <= LOOKBACK for m in marks):
                best = end
    return best


def load(work, workload, way):
    files = []
    steps = glob.glob(f"{work}/{workload}/{way}/requests-*")
    for step in sorted(steps, key=lambda d: int(d.rsplit("-", 1)[1])):
        files += sorted(glob.glob(f"{step}/[0-9]*[0-9].json"))
    return files, [json.load(open(f)) for f in files]


def measure(work, workload, way, billing_keyed=False):
    files, bodies = load(work, workload, way)
    requests = [blocks(b, billing_keyed) for b in bodies]
    billed = {"messages": 0.0, "whole": 0.0}
    for n, request in enumerate(requests):
        hit = served(request, requests[:n])
        if os.environ.get("CLAUDE_FOLD_VERBOSE") and not billing_keyed:
            chars = [b[2] for b in request]
            print(f"{way} {os.path.relpath(files[n], work)}: {sum(chars):,} characters, {sum(chars[:hit]):,} served "
                  f"({hit} of {len(request)} blocks)", file=sys.stderr)
        for i, (part, _, chars, _) in enumerate(request):
            cost = 0.1 * chars if i < hit else chars
            billed["whole"] += cost
            if part == "messages":
                billed["messages"] += cost
    last = json.dumps(bodies[-1].get("messages", []), ensure_ascii=False) if bodies else ""
    row = {
        "requests": len(bodies),
        "last": len(last),
        "billed_messages": round(billed["messages"]),
        "billed_whole": round(billed["whole"]),
        "outputs_in_last": len(set(re.findall(r"OUT_[A-Z0-9]+_END", last))),
        "refused": len(glob.glob(f"{work}/{workload}/{way}/requests-*/*.error.txt")),
        "billing_keyed": billing_keyed,
    }
    if way == "fork":
        row["fork_prefix"] = fork_prefix(files, bodies)
    return row


def fork_prefix(files, bodies):
    """Where the first fork request first differs from the parent's request before it."""
    first = next((i for i, b in enumerate(bodies) if "fork-boilerplate" in json.dumps(b)), None)
    if not first:
        return None
    parent, child = blocks(bodies[first - 1], False), blocks(bodies[first], False)
    same = 0
    for a, b in zip(parent, child):
        if a[1] != b[1]:
            break
        same += 1
    where = child[same][0] if same < len(child) else "end"
    index = sum(1 for b in child[:same + 1] if b[0] == "messages" and json.loads(b[1])[0] is not None) - 1
    shared = sum(b[2] for b in parent[:same] if b[0] == "messages")
    total = sum(b[2] for b in parent if b[0] == "messages")
    system = lambda request, keyed: [b for b in blocks(request, keyed) if b[0] == "system"]
    differs = lambda keyed: [i for i, (a, b) in enumerate(zip(system(bodies[first - 1], keyed),
                                                              system(bodies[first], keyed))) if a[1] != b[1]]
    return {"differs_in": where, "message": index if where == "messages" else None,
            "shared_message_chars": shared, "parent_message_chars": total,
            "system_differs": differs(False), "system_differs_keyed": differs(True)}


def targets(row, plain, limit=0.10):
    """Each target and whether `row` meets it; `limit` is the last request's share of plain's (15 % for turn
    frames, which fold without the model's help)."""
    out = [(f"last request ≤ {limit:.0%} of plain's", row["last"] <= limit * plain["last"]),
           ("billed (messages) < plain's", row["billed_messages"] < plain["billed_messages"]),
           ("billed (whole) < plain's", row["billed_whole"] < plain["billed_whole"]),
           ("none refused", row["refused"] == 0)]
    f = row.get("fork_prefix")
    if f is not None:
        system = f["system_differs_keyed" if row["billing_keyed"] else "system_differs"]
        out.append(("fork shares the parent's prefix",
                    not system and f["shared_message_chars"] == f["parent_message_chars"]))
    return out


def main():
    work, workload = sys.argv[1], sys.argv[2]
    # A run of fewer ways (an older script) is measured for the ways it ran.
    ran = [way for way in WAYS if os.path.isdir(os.path.join(work, workload, way))]
    rows = {way: measure(work, workload, way) for way in ran}
    rows["fork, billing line in the key"] = measure(work, workload, "fork", billing_keyed=True)
    p = rows["plain"]
    share = lambda a, b: f"{100 * a / max(1, b):.1f} %"
    print(f"{workload}:\n")
    print("| way | requests | last request (characters of its messages) | vs plain | billed, messages | vs plain "
          "| billed, whole requests | vs plain | outputs in the last request | refused | targets met |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for way, r in rows.items():
        met = "" if way == "plain" else ", ".join(
            ("yes" if cond else "**no**") for _, cond in targets(r, p, LIMITS.get(way, 0.10)))
        print(f"| {way} | {r['requests']} | {r['last']:,} | {share(r['last'], p['last'])} | {r['billed_messages']:,} "
              f"| {share(r['billed_messages'], p['billed_messages'])} | {r['billed_whole']:,} "
              f"| {share(r['billed_whole'], p['billed_whole'])} | {r['outputs_in_last']} | {r['refused']} | {met} |")
    print("\ntargets met, in order: " + "; ".join(name for name, _ in targets(rows["fork"], p)) + " (the last one "
          "for a fork only)")
    f = rows["fork"].get("fork_prefix")
    if f:
        where = f"messages[{f['message']}]" if f["differs_in"] == "messages" else f["differs_in"]
        whole = f["shared_message_chars"] == f["parent_message_chars"]
        print(f"\nfork: its first request's system blocks that differ from the parent's request before it: "
              f"{f['system_differs']} (with the billing line: {f['system_differs_keyed']}); it "
              + (f"holds the parent's {f['parent_message_chars']:,} message characters whole, then goes on "
                 f"from {where}" if whole else
                 f"first differs at {where}, sharing {f['shared_message_chars']:,} of the parent's "
                 f"{f['parent_message_chars']:,} message characters"))
    ok = True
    for way in [way for way in ("fork", "bash", "turns") if way in rows]:
        for what, cond in targets(rows[way], p, LIMITS.get(way, 0.10)):
            print(("met: " if cond else "NOT met: ") + f"{way}: {what}")
            ok = ok and cond
    out = os.environ.get("CLAUDE_FOLD_JSON")
    if out:
        with open(out, "a") as fh:
            fh.write(json.dumps({"workload": workload, "rows": rows}) + "\n")
    print()
    if "--check" in sys.argv and not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
