"""The stand-in's script of the first process of benches/gemini-resume.sh and benches/copilot-resume.sh: three parts
of refund work one after another, each two shell calls printing a build log (build-log.py), then a reply; with
WAY = ctx, each part is a frame the model pushes and pops from its shell.

  resume-steps.py WAY SHELL_TOOL SESSION_ARG     e.g. ctx run_shell_command "--session gm_<id>"
"""
import json
import sys

way, tool, session = sys.argv[1:]


def shell(when, command):
    return {"tools": True, "when": when,
            "tool_calls": [{"name": tool, "arguments": {"command": command, "description": "run"}}]}


steps, when = [], "Do the three parts"
for part in (1, 2, 3):
    if way == "ctx":
        steps.append(shell(when, f"ctx frame push {session} -- 'Refund work, part {part}' && echo pushed-{part}"))
        when = f"pushed-{part}"
    for run in ("a", "b"):
        steps.append(shell(when, f"python3 build-log.py {part} {run} && echo done-{part}{run}"))
        when = f"done-{part}{run}"
    if way == "ctx":
        summary = f"Part {part} done: its checks ran and the refund handler and the ledger agree."
        steps.append(shell(when, f"ctx frame pop {session} --summary '{summary}' && echo popped-{part}"))
        when = f"popped-{part}"
steps.append({"tools": True, "when": when, "reply": "All three parts of the refund work are done."})
print(json.dumps(steps, indent=1))
