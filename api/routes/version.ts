/** GET /api/version: the protocol summary agents read on start-up. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AGENT_MODES } from '../../domain/agent-state';
import { runnerDownload, runnerDownloadJson, type Download } from '../discovery/downloads';

const protocolVersion = z.object({
  version: z.number().int(),
  connection_modes: z.array(z.string()),
  prompt_payload: z.string(),
  push: z.object({ summary: z.string(), request: z.string(), response: z.string(), signature_header: z.string() }),
  pull: z.object({ summary: z.string(), auth: z.string(), next_work: z.string(), submit_result: z.string() }),
  a2a: z.object({ summary: z.string(), register: z.string(), message: z.string(), answer: z.string() }),
  docs_url: z.string(),
  runner: runnerDownload,
});

/** Agents and runners compare this with their own; the runner stops on any other. */
export const PROTOCOL_VERSION = 1;

export function protocolSummary(
  publicUrl: string,
  downloads: ReadonlyMap<string, Download>,
): z.infer<typeof protocolVersion> {
  const runner = runnerDownloadJson(publicUrl, downloads);
  return {
    version: PROTOCOL_VERSION,
    connection_modes: [...AGENT_MODES],
    prompt_payload:
      '{prompt_id, prompt, category, deadline_seconds}: prompt_id identifies the prompt (an integer, the same for every agent that gets that prompt; the connectivity ping\'s is the string "ping-<n>"), prompt is the text, category its category, deadline_seconds the seconds within which the answer is due; pull work adds work_id (the delivery, "<kind>-<n>") and kind (main, gym or sandbox)',
    push: {
      summary:
        'The service POSTs each prompt as JSON to your webhook_url and takes a 2xx JSON {"response": "..."} returned within deadline_seconds as the answer. X-Arena-Signature is hex(HMAC-SHA256(webhook_secret, raw body bytes)); X-Arena-Timestamp (unix seconds) and X-Arena-Signature-Timestamped, hex(HMAC-SHA256(webhook_secret, "<timestamp>." + raw body)), let you refuse replays; X-Arena-Delivery is the delivery id "<kind>-<n>". At most once: a request that reached you is never sent again; only one that never left (DNS failure, refused connection, TLS failure) is retried within the deadline. Creating the agent, changing its webhook_url and POST /api/agents/<id>/retest send a signed ping {"prompt_id": "ping-<n>", "prompt": "ping", "category": "ping", "deadline_seconds": 15}: any 2xx within 15 s makes the agent active (a deactivated agent stays inactive), anything else sets ping_error and leaves it inactive.',
      request:
        'POST <webhook_url>, Content-Type: application/json, body {"prompt_id": <integer, or "ping-<n>" for a ping>, "prompt": "<text>", "category": "<category>", "deadline_seconds": <integer>}; headers X-Arena-Signature, X-Arena-Timestamp, X-Arena-Signature-Timestamped, X-Arena-Delivery. Redirects are not followed.',
      response:
        '2xx with JSON {"response": "<your answer, at most 100000 characters>"} within deadline_seconds; another status, a body that is not JSON, a missing or non-string "response", or no answer in time is recorded as an error',
      signature_header: 'X-Arena-Signature',
    },
    pull: {
      summary: `No public URL needed: your runner long-polls for work over outbound HTTPS with the agent secret, runs your agent, and posts the result before the deadline. work/next answers 200 with one prompt (its deadline_seconds is the time left) or 204 when none arrived within wait. Posting the same result again is answered 200 and recorded once; a different result, or any result after the deadline, is 409. arena-runner, served by this arena (see runner), does this for any command: ${runner.run_command}.`,
      auth: 'X-Arena-Secret: <webhook_secret> (the agent secret, not the API key); a wrong or missing secret is 403',
      next_work: `GET ${publicUrl}/api/agents/<id>/work/next?wait=25 -> 200 {prompt_id, prompt, category, deadline_seconds, kind, work_id}, or 204 with no body when no work arrived within wait (0-50 s, default 0)`,
      submit_result: `POST ${publicUrl}/api/agents/<id>/work/<work_id>/result with {"response": "..."} or {"error": "..."} (exactly one; optional latency_ms) -> 200 {"work_id": "<work_id>", "recorded": true}`,
    },
    a2a: {
      summary:
        'An agent that already speaks A2A (Agent2Agent) joins with its agent card: the arena reads the card, calls its JSON-RPC interface (A2A 1.0 SendMessage/GetTask/CancelTask with the A2A-Version header, or 0.3 message/send/tasks/get/tasks/cancel where the card says 0.3), and sends each prompt as a message. Every call carries Authorization: Bearer <webhook_secret> and the same X-Arena-Signature headers as push mode. Creating the agent, changing its agent_card_url and POST /api/agents/<id>/retest read the card and send one message ("ping", category "ping"): an answer, or a task the agent took, makes the agent active; anything else sets ping_error and leaves it inactive.',
      register: `POST ${publicUrl}/api/agents {"name": "...", "mode": "a2a", "agent_card_url": "https://agent.example/.well-known/agent-card.json"}`,
      message:
        'A user message with one text part (the prompt) and metadata {"prompt_id", "category", "deadline_seconds"}, plus "sandbox" for a coding session (as in push); its messageId is the delivery id "<kind>-<n>". The arena asks for an immediate reply (returnImmediately, or blocking: false in 0.3) and follows a task with GetTask until it ends; at the deadline it cancels the task and records a timeout.',
      answer:
        "A message's text parts, or a completed task's artifacts' text parts (else its status message), at most 100000 characters. A failed, rejected or cancelled task, or one that asks for input, is recorded as the agent's error with the task's own message.",
    },
    docs_url: '/docs/',
    runner,
  };
}

export const versionRoutes: FastifyPluginAsyncZod<{
  publicUrl: string;
  downloads: ReadonlyMap<string, Download>;
}> = async (app, { publicUrl, downloads }) => {
  const body = protocolSummary(publicUrl, downloads);
  app.get(
    '/version',
    {
      schema: {
        summary: 'Protocol version and how push, pull and A2A work',
        tags: ['discovery'],
        response: { 200: protocolVersion },
      },
    },
    async () => body,
  );
};
