#!/usr/bin/env python3
"""A stand-in for Google's Gemini API (generateContent), for end-to-end tests with a real Gemini CLI. The command
line, the request log, the script and the strict check are every stand-in's (stand_in.py); this file is the wire
format's own part:

- `POST …/models/<model>:streamGenerateContent?alt=sse` (agent turns) answers one server-sent event: the reply's
  text and any function calls, finishReason "STOP" and usageMetadata; `:generateContent` (Gemini CLI's utility calls: compression, its router) answers the same
  content as one JSON object; `:countTokens` answers a token per 4 bytes;
- tool calls: functionCall parts ({"name", "args"}); Gemini CLI's shell tool is "run_shell_command" (arguments
  command, description), its subagent tool "invoke_agent" (agent_name, prompt), and a subagent ends with
  "complete_task" (result: {response});
- usage: promptTokenCount (default: a token per 4 bytes in, the cached ones among them), candidatesTokenCount
  (the reply's words), cachedContentTokenCount, thoughtsTokenCount and toolUsePromptTokenCount pass through, and
  totalTokenCount is their sum, as the API counts it; e.g. {"promptTokenCount": 600000} to make Gemini CLI
  compress;
- --strict: a model content with function calls must be followed at once by a user content answering each of
  them (a functionResponse of the same name, as many as there were calls), and a user content with function
  responses must follow such a model content.

  mock-gemini.py --port 47621 --requests ./requests [--reply TEXT] [--script FILE] [--max-seconds 600] [--strict]
"""
import json
from collections import Counter

from stand_in import Wire, estimated_tokens, serve


def calls(content):
    return Counter(p["functionCall"].get("name") for p in content.get("parts") or [] if "functionCall" in p)


def responses(content):
    return Counter(p["functionResponse"].get("name") for p in content.get("parts") or [] if "functionResponse" in p)


class GenerateContent(Wire):
    http11 = True

    def route(self, path, raw):
        if path.endswith(":countTokens"):
            return 200, {"totalTokens": estimated_tokens(raw)}
        if not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
            return 404, {"error": {"code": 404, "message": path, "status": "NOT_FOUND"}}
        return None

    def error(self, message):
        return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}

    def models(self):
        return {"models": [{"name": "models/gemini-2.5-pro"}]}

    def pairing_error(self, req):
        pending = Counter()
        for i, content in enumerate(req.get("contents") or []):
            answered = responses(content)
            if pending and answered != pending:
                return f"contents[{i}]: function calls {dict(pending)} are answered by {dict(answered)}"
            if answered and not pending:
                return f"contents[{i}]: function responses {dict(answered)} answer no function call just made"
            pending = calls(content) if content.get("role") == "model" else Counter()
        return None

    def answer(self, out, n, req, raw, step, reply):
        words = reply.split(" ") if reply else []
        usage = {"promptTokenCount": estimated_tokens(raw), "candidatesTokenCount": max(1, len(words))}
        usage.update(step.get("usage", {}))
        # As the API counts it: the thoughts and a tool's own prompt are neither prompt nor candidates.
        usage["totalTokenCount"] = sum(usage.get(key, 0) for key in (
            "promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "toolUsePromptTokenCount"))
        function_calls = [{"functionCall": {"name": c["name"], "args": c.get("arguments", {})}}
                          for c in step.get("tool_calls", [])]
        model = out.path.split("/models/")[-1].split(":")[0]

        parts = ([{"text": reply}] if reply else []) + function_calls
        answer = {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, "finishReason": "STOP"}],
                  "modelVersion": model, "usageMetadata": usage}
        if ":streamGenerateContent" not in out.path:
            out.json(200, answer)
            return
        # One event: Gemini CLI 0.61.0's AfterAgent hook was seen to get a reply split over two events with
        # the last event's text twice.
        out.events()
        out.send(b"data: " + json.dumps(answer).encode() + b"\r\n\r\n")


if __name__ == "__main__":
    serve(GenerateContent())
