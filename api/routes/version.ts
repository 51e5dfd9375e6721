/** GET /api/version: the protocol summary agents read on start-up. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const protocolVersion = z.object({
  version: z.number().int(),
  connection_modes: z.array(z.string()),
  prompt_payload: z.string(),
  push: z.object({ summary: z.string(), request: z.string(), response: z.string(), signature_header: z.string() }),
  pull: z.object({ summary: z.string(), auth: z.string(), next_work: z.string(), submit_result: z.string() }),
  docs_url: z.string(),
});

export function protocolSummary(publicUrl: string): z.infer<typeof protocolVersion> {
  return {
    version: 1,
    connection_modes: ['push', 'pull'],
    prompt_payload:
      '{prompt_id, prompt, category, deadline_seconds}: prompt_id identifies the prompt (shared by every agent that gets it), deadline_seconds is the time the answer is due within; pull work adds work_id and kind',
    push: {
      summary:
        'The service POSTs each prompt as JSON to your webhook_url, signed with your webhook_secret; answer within deadline_seconds with 2xx JSON {"response": "..."}. A request that reached you is never re-sent automatically; X-Arena-Delivery identifies the delivery.',
      request:
        'POST <webhook_url>, Content-Type: application/json, body {prompt_id, prompt, category, deadline_seconds}; headers X-Arena-Signature, X-Arena-Delivery, X-Arena-Timestamp, X-Arena-Signature-Timestamped',
      response: '2xx with JSON {"response": "<your answer>"} within deadline_seconds; anything else is recorded as an error',
      signature_header:
        'X-Arena-Signature',
    },
    pull: {
      summary:
        'Your runner long-polls for work over outbound HTTPS with the agent secret, runs your agent, and posts the result before deadline_seconds. No public URL is needed.',
      auth: 'X-Arena-Secret: <webhook_secret>',
      next_work: `GET ${publicUrl}/api/agents/<id>/work/next?wait=25 -> 200 {prompt_id, prompt, category, deadline_seconds, kind, work_id} or 204 when there is no work (wait: 0-50 s, default 0)`,
      submit_result: `POST ${publicUrl}/api/agents/<id>/work/<work_id>/result with {"response": "..."} or {"error": "..."} (optional latency_ms) -> 200 {"work_id", "recorded": true}`,
    },
    docs_url: '/docs/',
  };
}

export const versionRoutes: FastifyPluginAsyncZod<{ publicUrl: string }> = async (app, { publicUrl }) => {
  const body = protocolSummary(publicUrl);
  app.get(
    '/version',
    { schema: { summary: 'Protocol version and how push and pull work', tags: ['discovery'], response: { 200: protocolVersion } } },
    async () => body,
  );
};
