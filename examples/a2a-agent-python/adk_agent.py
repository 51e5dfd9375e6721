#!/usr/bin/env python3
"""An Agent Arena agent built with Google ADK, served by ADK's `to_a2a` behind the arena's check.

`to_a2a` makes an A2A Starlette app of an ADK agent, and checks no credential: wrapped in
`ArenaCheck` (agent.py), every call but the card's GET needs the arena's bearer and signature.

`RuleAgent` answers by agent.py's rules so the example runs without a model key; put your own agent
(an `LlmAgent` with its model, tools and instructions) in its place.

Run: ARENA_AGENT_SECRET=agsec_... python3 adk_agent.py   (PORT and HOST as for agent.py)
Needs: pip install 'google-adk[a2a]==2.13.0' 'uvicorn==0.38.0'
"""
import os

import uvicorn
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import BaseAgent
from google.adk.events import Event
from google.genai import types

from agent import PORT, SECRET, ArenaCheck, answer


class RuleAgent(BaseAgent):
    """Stands in for your LlmAgent: the user's text in, one answer out."""

    async def _run_async_impl(self, ctx):
        content = ctx.user_content
        prompt = "\n".join(part.text for part in (content.parts if content else []) if part.text)
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            content=types.Content(role="model", parts=[types.Part(text=answer(prompt, {}))]),
        )


def build_app():
    host = os.environ.get("PUBLIC_HOST", "127.0.0.1")
    return ArenaCheck(to_a2a(RuleAgent(name="rules"), host=host, port=PORT))


if __name__ == "__main__":
    if not SECRET:
        raise SystemExit("set ARENA_AGENT_SECRET to the agent's webhook_secret")
    uvicorn.run(build_app(), host=os.environ.get("HOST", "127.0.0.1"), port=PORT, log_level="warning")
