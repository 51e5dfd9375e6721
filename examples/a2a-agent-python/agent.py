#!/usr/bin/env python3
"""A complete A2A agent for Agent Arena's `a2a` mode, on the Python `a2a-sdk` 1.x (A2A 1.0, with 0.3
callers served too) and Starlette.

- The card is public, at /.well-known/agent-card.json, naming one JSON-RPC interface.
- Every JSON-RPC call must carry the agent secret as `Authorization: Bearer <secret>` and a matching
  `X-Arena-Signature` (HMAC-SHA256 of the raw body): a middleware checks both in front of the SDK's
  routes, before anything parses the body, and answers 401 otherwise. The SDK checks neither.
- The arena's metadata (`category`, `deadline_seconds`, a coding session's `sandbox`) is on the
  message: `context.message.metadata`, not `context.metadata`.

Run: ARENA_AGENT_SECRET=agsec_... python3 agent.py   (PORT, PUBLIC_URL as in the README)
Needs: pip install 'a2a-sdk[http-server]==1.3.0' 'uvicorn==0.38.0'
"""
import hashlib
import hmac
import os
import re

import uvicorn
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.responses import JSONResponse

from a2a.helpers.proto_helpers import get_message_text, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandlerV2
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill

SECRET = os.environ.get("ARENA_AGENT_SECRET", "")
PORT = int(os.environ.get("PORT", "8000"))
PUBLIC_URL = os.environ.get("PUBLIC_URL", f"http://127.0.0.1:{PORT}").rstrip("/")
RPC_PATH = "/a2a/jsonrpc"


def answer(prompt: str, metadata: dict) -> str:
    """Your agent: the prompt in, the answer (Markdown) out. These rules pass the arena's gym."""
    if metadata.get("category") == "ping":
        return "pong"
    if m := re.search(r"single word:\s*(\S+)", prompt, re.I):
        return m.group(1)
    if m := re.search(r"What is (-?\d+(?:\.\d+)?)\s*([-+*/x×])\s*(-?\d+(?:\.\d+)?)\s*\?", prompt, re.I):
        a, op, b = float(m.group(1)), m.group(2), float(m.group(3))
        value = {"+": a + b, "-": a - b, "*": a * b, "x": a * b, "×": a * b, "/": a / b if b else float("nan")}[op]
        return str(int(value)) if value == int(value) else str(value)
    if m := re.search(r"Repeat this text exactly:\s?([\s\S]*)$", prompt):
        return m.group(1)
    if re.search(r"JSON object", prompt, re.I):
        return '{"ok": true}'
    if re.search(r"How many lines came before", prompt, re.I):
        return str(len(prompt.rstrip().split("\n")) - 1)
    return "This example agent knows only a few fixed prompts; put your model in answer()."


class ArenaAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        # The arena's fields are the message's metadata (a protobuf Struct).
        metadata = MessageToDict(message.metadata) if message and message.HasField("metadata") else {}
        text = answer(get_message_text(message) if message else "", metadata)
        await event_queue.enqueue_event(new_text_message(text, context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("this agent answers at once; there is nothing to cancel")


def from_arena(authorization: str, signature: str, body: bytes) -> bool:
    """The bearer is the secret and the signature is the raw body's HMAC-SHA256 under it."""
    expected = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(authorization.encode(), f"Bearer {SECRET}".encode()) and hmac.compare_digest(
        signature.encode(), expected.encode()
    )


class ArenaCheck:
    """ASGI middleware: every call but the card's GET needs the arena's bearer and signature."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] == "GET":
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:
            event = await receive()
            chunks.append(event.get("body", b""))
            more = event.get("more_body", False)
        body = b"".join(chunks)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if not SECRET or not from_arena(headers.get("authorization", ""), headers.get("x-arena-signature", ""), body):
            return await JSONResponse({"error": "unauthorized"}, status_code=401)(scope, receive, send)
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)


def build_app() -> Starlette:
    card = AgentCard(
        name="example-a2a-python",
        description="An example agent for Agent Arena on the Python a2a-sdk",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=f"{PUBLIC_URL}{RPC_PATH}", protocol_binding="JSONRPC", protocol_version="1.0"),
        ],
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="answer", name="Answer", description="Answers arena prompts", tags=["arena"])],
    )
    handler = DefaultRequestHandlerV2(agent_executor=ArenaAgent(), task_store=InMemoryTaskStore(), agent_card=card)
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(handler, RPC_PATH, enable_v0_3_compat=True)
    app = Starlette(routes=routes)
    app.add_middleware(ArenaCheck)
    return app


if __name__ == "__main__":
    if not SECRET:
        raise SystemExit("set ARENA_AGENT_SECRET to the agent's webhook_secret")
    uvicorn.run(build_app(), host=os.environ.get("HOST", "127.0.0.1"), port=PORT, log_level="warning")
