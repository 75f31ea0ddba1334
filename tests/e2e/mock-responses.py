#!/usr/bin/env python3
"""A stand-in model speaking the streamed OpenAI Responses API (POST /v1/responses, server-sent events), for
end-to-end tests with a real Codex CLI. The command line, the request log, the script and the strict check are
every stand-in's (stand_in.py); this file is the wire format's own part:

- the reply: an output item of type "message"; tool calls: output items of type "function_call" (a call may name
  its "namespace", as multi_agent_v1's spawn_agent needs), e.g. {"name": "exec_command", "arguments": {"cmd": "…"}};
- usage: input_tokens (default: a token per 4 bytes of the request), output_tokens (default: the reply's words),
  input_tokens_details, output_tokens_details;
- a body sent with `content-encoding: zstd` (Codex compresses requests to OpenAI's own endpoints) is decompressed
  with the `zstd` command-line tool, as Python has no zstd module of its own; the log holds the decompressed JSON;
- --strict: every function call needs its output, and every output a call before it.

  mock-responses.py --port 47400 --requests ./requests [--reply TEXT] [--script FILE] [--max-seconds 600] [--strict]
"""
import json
import os
import subprocess
import time

from stand_in import Wire, estimated_tokens, serve

CALL_TYPES = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


class Responses(Wire):
    http11 = True

    def models(self):
        return {"object": "list", "data": [{"id": "mock-1", "object": "model"}], "models": []}

    def decode(self, raw, headers):
        if headers.get("content-encoding", "").strip().lower() != "zstd":
            return raw
        return subprocess.run(["zstd", "-d", "-c", "-q"], input=raw, capture_output=True, check=True).stdout

    def pairing_error(self, req):
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

    def answer(self, out, n, req, raw, step, reply):
        words = reply.split(" ") if reply else []
        usage = {
            "input_tokens": estimated_tokens(raw),
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": max(1, len(words)),
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        usage.update(step.get("usage", {}))
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        out.events()
        sequence = {"n": 0}

        def event(kind, obj):
            obj = {"type": kind, "sequence_number": sequence["n"], **obj}
            sequence["n"] += 1
            out.send(f"event: {kind}\ndata: {json.dumps(obj)}\n\n".encode())

        # Unique across processes, as the real API's are: a rollout names each call by it.
        response = {"id": f"resp_{os.getpid()}_{n}", "object": "response", "created_at": int(time.time()),
                    "model": req.get("model", "mock-1"), "status": "in_progress", "output": []}
        event("response.created", {"response": response})
        output = []
        if reply:
            item_id = f"msg_{n}"
            index = len(output)
            event("response.output_item.added", {"output_index": index, "item": {
                "id": item_id, "type": "message", "role": "assistant", "status": "in_progress", "content": []}})
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
            # Ids unique across processes as the real API's are: a resumed session sends the earlier process's
            # calls again, and a repeated id could hide a dropped output.
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


if __name__ == "__main__":
    serve(Responses())
