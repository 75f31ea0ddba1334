#!/usr/bin/env python3
"""A stand-in language model for end-to-end tests with a real Codex CLI.

It speaks the streamed OpenAI Responses API (POST /v1/responses, server-sent events), listens on 127.0.0.1 only,
writes every request it receives to REQUEST_DIR/NNNN.json (decompressed) so a test can read exactly what Codex sent
to the model, and answers with a fixed reply, or with the steps of a script. It exits by itself after --max-seconds.

  mock-responses.py --port 47400 --requests ./requests [--reply TEXT] [--script FILE] [--max-seconds 600] [--strict]

The script format is mock-llm.py's (a JSON list of steps, each used once, by the first request it fits):
  {"when": "TEXT",            optional: TEXT must occur in the request body (as sent, JSON-escaped)
   "tools": true,             optional: true = only requests that offer tools, false = only requests without
   "reply": "TEXT",           the assistant's text (an output item of type "message"), or
   "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "ctx frame tree"}}],
                              function calls (output items of type "function_call"; a call may name its
                              "namespace", as multi_agent_v1's spawn_agent needs); Codex runs them and asks again
   "usage": {"input_tokens": 190000},   optional: reported usage
   "delay": 1.5}              optional: seconds to wait before answering
Every step used is logged to REQUEST_DIR/NNNN.step.json beside the request it answered. Reported usage:
input_tokens = ceil(len(request body) / 4), output_tokens = number of words in the reply.

A body sent with `content-encoding: zstd` (Codex compresses requests to OpenAI's own endpoints) is decompressed with
the `zstd` command-line tool, as Python has no zstd module of its own; the log holds the decompressed JSON.

--strict refuses, as the real API does, a request whose `function_call` and `function_call_output` items do not pair
up (a call with no output of its call_id, or an output whose call_id no call before it has): HTTP 400 with the
reason, also written to REQUEST_DIR/NNNN.error.txt.

The code is not shared with mock-llm.py by importing: that script keeps its step matching inside main(), and the
two wire formats share nothing else.
"""
import argparse
import json
import math
import os
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALL_TYPES = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


def pairing_error(req):
    """What the Responses API refuses: a function call without its output, or an output for no earlier call.
    None when the request is fine."""
    calls, answered = {}, set()
    for i, item in enumerate(req.get("input") or []):
        kind = item.get("type")
        if kind in CALL_TYPES:
            calls.setdefault(item.get("call_id"), i)
        elif kind in OUTPUT_TYPES:
            call = item.get("call_id")
            if call not in calls:
                return f"input[{i}]: a {kind} for {call!r}, which no earlier call has"
            answered.add(call)
    missing = sorted(c for c in calls if c not in answered)
    if missing:
        return f"function calls {missing} have no output"
    return None


def decoded(raw, encoding):
    """The request body as JSON text: zstd bodies go through the zstd tool."""
    if encoding.strip().lower() != "zstd":
        return raw
    return subprocess.run(["zstd", "-d", "-c", "-q"], input=raw, capture_output=True, check=True).stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--requests", required=True, help="folder for one JSON file per request")
    ap.add_argument("--reply", default="Done. The change is in place and the tests pass.")
    ap.add_argument("--script", help="JSON list of steps (see the module's docstring)")
    ap.add_argument("--max-seconds", type=float, default=600)
    ap.add_argument("--strict", action="store_true", help="refuse requests whose calls and outputs do not pair up")
    args = ap.parse_args()
    os.makedirs(args.requests, exist_ok=True)
    steps = json.load(open(args.script)) if args.script else []
    used = [False] * len(steps)
    counter = {"n": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def _json(self, code, obj):
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self._json(200, {"object": "list", "data": [{"id": "mock-1", "object": "model"}], "models": []})

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length", "0") or 0))
            with lock:
                counter["n"] += 1
                n = counter["n"]
            prefix = os.path.join(args.requests, f"{n:04d}")
            try:
                raw = decoded(raw, self.headers.get("content-encoding", ""))
                req = json.loads(raw or b"{}")
            except (ValueError, subprocess.CalledProcessError, OSError) as e:
                with open(prefix + ".error.txt", "w") as f:
                    f.write(f"body is not JSON: {e}\n")
                self._json(400, {"error": {"message": "body is not JSON"}})
                return
            with open(prefix + ".json", "wb") as f:
                f.write(raw)
            problem = pairing_error(req) if args.strict else None
            if problem:
                with open(prefix + ".error.txt", "w") as f:
                    f.write(problem + "\n")
                self._json(400, {"error": {"message": problem, "type": "invalid_request_error"}})
                return
            step = {}
            body = raw.decode("utf-8", "replace")
            offers_tools = bool(req.get("tools"))
            with lock:
                for i, candidate in enumerate(steps):
                    if used[i] or candidate.get("when", "") not in body:
                        continue
                    if "tools" in candidate and candidate["tools"] != offers_tools:
                        continue
                    used[i], step = True, candidate
                    break
            if step:
                with open(prefix + ".step.json", "w") as f:
                    json.dump(step, f)
                time.sleep(float(step.get("delay", 0)))
            reply = step.get("reply", "" if "tool_calls" in step else args.reply)
            words = reply.split(" ") if reply else []
            usage = {
                "input_tokens": math.ceil(len(raw) / 4),
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": max(1, len(words)),
                "output_tokens_details": {"reasoning_tokens": 0},
            }
            usage.update(step.get("usage", {}))
            usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
            response_id = f"resp_{n}"
            model = req.get("model", "mock-1")

            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            sequence = {"n": 0}

            def event(kind, obj):
                obj = {"type": kind, "sequence_number": sequence["n"], **obj}
                sequence["n"] += 1
                self.wfile.write(f"event: {kind}\ndata: {json.dumps(obj)}\n\n".encode())
                self.wfile.flush()

            response = {"id": response_id, "object": "response", "created_at": int(time.time()),
                        "model": model, "status": "in_progress", "output": []}
            event("response.created", {"response": response})
            output = []
            if reply:
                item_id = f"msg_{n}"
                index = len(output)
                event("response.output_item.added", {"output_index": index, "item": {
                    "id": item_id, "type": "message", "role": "assistant", "status": "in_progress",
                    "content": []}})
                for i, w in enumerate(words):
                    text = w if i == len(words) - 1 else w + " "
                    event("response.output_text.delta", {"item_id": item_id, "output_index": index,
                                                         "content_index": 0, "delta": text})
                item = {"id": item_id, "type": "message", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": reply, "annotations": []}]}
                event("response.output_item.done", {"output_index": index, "item": item})
                output.append(item)
            for i, c in enumerate(step.get("tool_calls", [])):
                index = len(output)
                # Ids unique across processes as the real API's are: a resumed session sends the
                # earlier process's calls again, and a repeated id could hide a dropped output.
                item = {"id": f"fc_{os.getpid()}_{n}_{i}", "type": "function_call", "status": "completed",
                        "call_id": f"call_{os.getpid()}_{n}_{i}", "name": c["name"],
                        "arguments": json.dumps(c.get("arguments", {}))}
                if c.get("namespace"):
                    item["namespace"] = c["namespace"]
                event("response.output_item.added", {"output_index": index, "item": {**item, "arguments": ""}})
                event("response.output_item.done", {"output_index": index, "item": item})
                output.append(item)
            event("response.completed", {"response": {**response, "status": "completed", "output": output,
                                                      "usage": usage}})

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    threading.Timer(args.max_seconds, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
