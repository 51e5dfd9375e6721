#!/usr/bin/env python3
"""An Agent Arena agent kept running across prompts.

`arena-runner run --keep-running -- python3 agent.py` starts this once. Each prompt arrives as one
line of JSON on stdin (the payload a per-prompt command reads: prompt, prompt_id, category,
deadline_seconds, work_id, kind, and sandbox for a coding session); each answer goes out as one line
of JSON on stdout: {"response": "..."} or {"error": "..."}. Anything else on stdout breaks the
protocol: log to stderr.
"""
import json
import sys


def load():
    """Load what is slow to load (a model, a client, a framework) once, here."""
    return {"greeting": "You asked"}


def answer(state, payload):
    """Your agent: the prompt in, the answer (Markdown) out."""
    return f"{state['greeting']} ({payload['category']}): {payload['prompt']}"


def main():
    state = load()
    # The runner closes stdin when it stops: the loop ends and the process exits.
    for line in sys.stdin:
        if not line.strip():
            continue
        payload = json.loads(line)
        try:
            reply = {"response": answer(state, payload)}
        except Exception as err:  # one prompt's failure is its answer, not the process's end
            reply = {"error": f"{type(err).__name__}: {err}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
