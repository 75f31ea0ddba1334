"""What every stand-in model of the end-to-end tests shares: the command line, the request log, the script and
its step matching, the strict check, and the server. Each wire format is a script of its own that gives only what
is its own: its encoder (how a step is answered), its pairing rule (what its real API refuses), its default
usage and its extra routes.

  mock-llm.py        OpenAI chat completions (OpenCode, Kilo Code, pi)
  mock-anthropic.py  Anthropic Messages (Claude Code; OpenCode through @ai-sdk/anthropic)
  mock-responses.py  OpenAI Responses (Codex CLI)
  mock-gemini.py     Google generateContent, streamed and not (Gemini CLI)

Each is run as `SCRIPT --port N --requests DIR [--reply TEXT] [--script FILE] [--max-seconds S] [--strict]`. It
listens on 127.0.0.1 only, writes every request body it receives to DIR/NNNN.json (exactly what the agent sent,
decompressed if the agent compressed it), and exits by itself after --max-seconds.

A script (--script FILE, or MOCK_SCRIPT for the sandbox scripts) is a JSON list of steps. Each request takes the
first step not used yet whose conditions hold, and the step is then used up; a request that no step fits gets the
fixed reply (--reply, or the wire format's own default). A step:
  {"when": "TEXT",            optional: TEXT must occur in the request body (as sent, JSON-escaped)
   "tools": true,             optional: true = only requests that offer tools (agent turns; title and summary
                              requests offer none), false = only requests that offer none
   "reply": "TEXT",           the assistant's text, and/or
   "tool_calls": [{"name": "bash", "arguments": {"command": "ctx frame tree", "description": "show"}}],
                              tool calls, in the wire format's own form; the agent runs them and asks again
   "usage": {…},              optional: reported usage, in the wire format's own names (e.g. to make the agent
                              compact); the default is about a token per 4 bytes in and a token per word out
   "after": "TEXT",           optional: wait to answer until a request with TEXT in its body has been answered
                              (at most a minute), e.g. a turn's last reply held back until a compaction the agent
                              runs beside the turn has its summary, however busy the machine
   "delay": 1.5}              optional: seconds to wait before answering (a slow model: lets events that arrive
                              later find the session still busy); counted after "after"
Every step used is logged to DIR/NNNN.step.json beside the request it answered.

--strict (MOCK_STRICT=1 for the sandbox scripts) refuses, as the real APIs do, a request whose tool calls and
results do not pair up by the wire format's own rule: HTTP 400 with the reason, also written to DIR/NNNN.error.txt.
Use it wherever a plugin or hook rewrites the message list.
"""
import argparse
import json
import math
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_REPLY = "Done. The change is in place and the tests pass."


class Wire:
    """A wire format: what a stand-in script gives `serve`. The defaults are those of OpenAI's chat completions."""

    # HTTP/1.1 keeps a connection open between requests, as Anthropic's and OpenAI's servers do.
    http11 = False
    # Headers of every answer.
    headers = ()

    def route(self, path, raw):
        """None for a model request; else the JSON answer of another route (count_tokens, …) as (code, object)."""
        return None

    def decode(self, raw, headers):
        """The request body as JSON text (a compressed body decompressed)."""
        return raw

    def pairing_error(self, req):
        """What the real API refuses of the request's tool calls and results; None when it is fine."""
        return None

    def error(self, message):
        """The body of a 400 answer."""
        return {"error": {"message": message, "type": "invalid_request_error"}}

    def models(self):
        """The answer to any GET."""
        return {"object": "list", "data": [{"id": "mock-1", "object": "model"}]}

    def default_reply(self, body, args):
        """The text of a request that no step fits."""
        return args.reply

    def answer(self, out, n, req, raw, step, reply):
        """Answers the request `req` (number `n`, body `raw`) with `step` (maybe {}): `reply` is its text ("" for a
        step of tool calls alone). `out` writes: `out.json(code, obj)`, or `out.events()` then `out.send(bytes)`."""
        raise NotImplementedError


def estimated_tokens(raw):
    """The input a request reports by default: about a token per 4 bytes."""
    return math.ceil(len(raw) / 4)


def reply_of(step, default):
    """A step's text: its reply; none when it only calls tools; else the default."""
    return step.get("reply", "" if "tool_calls" in step else default)


def serve(wire):
    """Parses the command line and answers requests with `wire` until --max-seconds have passed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--requests", required=True, help="folder for one JSON file per request")
    ap.add_argument("--reply", default=DEFAULT_REPLY)
    ap.add_argument("--script", help="JSON list of steps (see stand_in.py)")
    ap.add_argument("--max-seconds", type=float, default=600)
    ap.add_argument("--strict", action="store_true", help="refuse requests whose tool calls and results do not pair up")
    args = ap.parse_args()
    os.makedirs(args.requests, exist_ok=True)
    steps = json.load(open(args.script)) if args.script else []
    used = [False] * len(steps)
    counter = {"n": 0}
    lock = threading.Lock()
    # The bodies of the requests answered so far, for steps that wait on one ("after").
    answered = []
    answered_changed = threading.Condition(lock)

    def take_step(body, offers_tools):
        with lock:
            for i, step in enumerate(steps):
                if used[i] or step.get("when", "") not in body:
                    continue
                if "tools" in step and bool(step["tools"]) != offers_tools:
                    continue
                used[i] = True
                return step
        return {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1" if wire.http11 else "HTTP/1.0"

        def log_message(self, *_):
            pass

        def json(self, code, obj):
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            for name, value in wire.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def events(self):
            """Starts a stream of server-sent events, which ends with the connection."""
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            for name, value in wire.headers:
                self.send_header(name, value)
            self.end_headers()
            self.close_connection = True

        def send(self, data):
            self.wfile.write(data)
            self.wfile.flush()

        def do_HEAD(self):
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self):
            self.json(200, wire.models())

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length", "0") or 0))
            other = wire.route(self.path.split("?")[0], raw)
            if other is not None:
                self.json(*other)
                return
            with lock:
                counter["n"] += 1
                n = counter["n"]
            prefix = os.path.join(args.requests, f"{n:04d}")

            def refuse(problem):
                with open(prefix + ".error.txt", "w") as f:
                    f.write(problem + "\n")
                self.json(400, wire.error(problem))

            try:
                raw = wire.decode(raw, self.headers)
            except Exception as e:  # whatever a decoder raises, the request is refused
                refuse(f"body cannot be decoded: {e}")
                return
            with open(prefix + ".json", "wb") as f:
                f.write(raw)
            try:
                req = json.loads(raw or b"{}")
            except ValueError:
                refuse("body is not JSON")
                return
            problem = wire.pairing_error(req) if args.strict else None
            if problem:
                refuse(problem)
                return
            body = raw.decode("utf-8", "replace")
            step = take_step(body, bool(req.get("tools")))
            if step:
                with open(prefix + ".step.json", "w") as f:
                    json.dump(step, f)
                if "after" in step:
                    with answered_changed:
                        answered_changed.wait_for(lambda: any(step["after"] in b for b in answered), timeout=60)
                time.sleep(float(step.get("delay") or 0))
            wire.answer(self, n, req, raw, step, reply_of(step, wire.default_reply(body, args)))
            with answered_changed:
                answered.append(body)
                answered_changed.notify_all()

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    threading.Timer(args.max_seconds, server.shutdown).start()
    server.serve_forever()
