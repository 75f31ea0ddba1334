"""The stand-in model's request log, as every end-to-end suite reads it.

The stand-in (stand_in.py) writes each request it is sent as `<n>.json` in its log folder, in
the order they came. `bodies(folder)` gives those bodies in that order; `checks(folder, wire)`
gives them as views of the wire format the agent speaks, with the suites' two helpers:

    requests, need, first = checks(sys.argv[1], "chat")
    need(condition, what)   # fails the check, printing each request's gist
    first(predicate, what)  # the first request for which predicate holds, else fails

Each view is a dict with "file", "body" and "all" (the body as JSON text), and the fields of its
wire format:
- "chat" (OpenAI chat completions: OpenCode, Kilo, pi): "messages" (without the system one),
  "system", "tools", "texts", "last_user" (the user turn the model answers: the user messages
  after the last other one, since ctx puts its context in a user message of its own right after
  the person's), "last" (the last message that is not a frame context), "size" (characters of the
  messages' JSON);
- "anthropic" (Messages: Claude Code): "turns" (the role-"system" turns of messages[]),
  "last_user";
- "responses" (OpenAI Responses: Codex): "developer" (the developer messages' text), "users" (the
  user messages' texts), "outputs" (the function call outputs);
- "gemini" (generateContent: Gemini CLI): "users" (the user contents' texts), "last_user",
  "texts" (every text part), "system" (the system instruction), "tools" (the function names).

The suites put this folder on PYTHONPATH (lib.sh).
"""

import glob
import json
import re
import sys


def bodies(folder):
    """The request bodies logged in `folder`, in the order they were sent."""
    return [json.load(open(path)) for path in paths(folder)]


def paths(folder):
    return sorted(glob.glob(folder + "/[0-9]*[0-9].json"))


def chat_text(message):
    """A chat message's text: its content string, or its parts' texts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [])


def anthropic_text(message):
    """A Messages message's text: its content string, or its text blocks, other blocks as JSON."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") if p.get("type") == "text" else json.dumps(p) for p in content or [])


def responses_text(item):
    """A Responses input item's text."""
    return "".join(p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict))


def gemini_text(content):
    """A generateContent content's text: its text parts."""
    return "".join(p.get("text", "") for p in content.get("parts") or [] if isinstance(p, dict))


def chat(body):
    messages = body.get("messages", [])
    tail = []
    for m in reversed(messages):
        if m["role"] == "system":
            continue
        if m["role"] != "user":
            break
        tail.insert(0, chat_text(m))
    if not tail:
        tail = [chat_text(m) for m in messages if m["role"] == "user"]
    others = [m for m in messages if m["role"] != "system"]
    return {
        "tools": [t["function"]["name"] for t in body.get("tools") or []],
        "system": "".join(chat_text(m) for m in messages if m["role"] == "system"),
        "last_user": "\n\n".join(tail),
        "messages": others,
        "size": len(json.dumps(others, ensure_ascii=False)),
        "texts": "\n".join(chat_text(m) for m in messages),
        "last": next((chat_text(m) for m in reversed(messages) if not chat_text(m).startswith("<flame-context")), ""),
    }


def anthropic(body):
    messages = body.get("messages", [])
    users = [anthropic_text(m) for m in messages if m["role"] == "user"]
    return {
        "turns": "".join(anthropic_text(m) for m in messages if m["role"] == "system"),
        "last_user": users[-1] if users else "",
    }


def responses(body):
    items = body.get("input", [])
    messages = [i for i in items if i.get("type") == "message"]
    return {
        "developer": "".join(responses_text(m) for m in messages if m.get("role") == "developer"),
        "users": [responses_text(m) for m in messages if m.get("role") == "user"],
        "outputs": [str(i.get("output")) for i in items if i.get("type") == "function_call_output"],
    }


def gemini(body):
    contents = body.get("contents", [])
    users = [gemini_text(c) for c in contents if c.get("role") == "user"]
    return {
        "users": users,
        "last_user": users[-1] if users else "",
        "texts": "\n".join(gemini_text(c) for c in contents),
        "system": gemini_text(body.get("systemInstruction") or {}),
        "tools": [f["name"] for t in body.get("tools") or [] for f in t.get("functionDeclarations") or []],
    }


def goals(text):
    return re.findall(r"<goal>(.*?)</goal>", text)


def show_chat(r):
    print(" ", r["file"].rsplit("/", 1)[-1], r["size"], r["last"][:300].replace("\n", " "), file=sys.stderr)


def show_anthropic(r):
    print(" ", r["file"].rsplit("/", 1)[-1], r["last_user"][:200].replace("\n", " "), file=sys.stderr)
    # The frames each request was shown, to tell a wrong frame from a missing one.
    print("    goals:", goals(r["all"]), "in turns:", goals(r["turns"]),
          "last user ends:", repr(r["last_user"][-80:]), file=sys.stderr)


def show_responses(r):
    print(" ", r["file"].rsplit("/", 1)[-1], (r["users"] or [""])[-1][:120].replace("\n", " "), file=sys.stderr)
    print("    goals:", goals(r["developer"]), file=sys.stderr)


def show_gemini(r):
    print(" ", r["file"].rsplit("/", 1)[-1], r["last_user"][:200].replace("\n", " "), file=sys.stderr)


WIRES = {
    "chat": (chat, show_chat),
    "anthropic": (anthropic, show_anthropic),
    "responses": (responses, show_responses),
    "gemini": (gemini, show_gemini),
}


def checks(folder, wire):
    """The requests logged in `folder` as views of `wire`, and `need` and `first` over them."""
    view, show = WIRES[wire]
    requests = []
    for path in paths(folder):
        body = json.load(open(path))
        requests.append({"file": path, "body": body, "all": json.dumps(body), **view(body)})

    def need(condition, what):
        if not condition:
            print("not so:", what, file=sys.stderr)
            for r in requests:
                show(r)
            sys.exit(1)

    def first(predicate, what):
        for r in requests:
            if predicate(r):
                return r
        need(False, what)

    return requests, need, first
