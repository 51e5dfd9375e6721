import { interpretPushResponse, promptPayload, workPayload } from '../../../domain/delivery-payload';
import { assertCanTakeDelivery } from '../../../domain/agent-state';
import { ArenaError } from '../../../domain/errors';

const prompt = { promptId: 7, text: 'Say hi', category: 'writing', deadlineSeconds: 60 };
const sandbox = {
  session_id: 'sandbox-9',
  api: 'https://arena.example/api/agents/3/sandbox/sandbox-9',
  mcp_url: 'https://arena.example/mcp',
  token: 't',
  expires_at: '2026-11-26T08:00:00.000Z',
  max_steps: 40,
};

describe('the delivery payload, one builder for both modes', () => {
  it('a push body is the prompt and its deadline; a coding session adds its sandbox', () => {
    expect(promptPayload(prompt)).toEqual({
      prompt_id: 7,
      prompt: 'Say hi',
      category: 'writing',
      deadline_seconds: 60,
    });
    expect(promptPayload({ ...prompt, sandbox })).toEqual({
      prompt_id: 7,
      prompt: 'Say hi',
      category: 'writing',
      deadline_seconds: 60,
      sandbox,
    });
  });

  it('a work item is the same prompt with its work id, and the original it redelivers', () => {
    expect(workPayload(prompt, { kind: 'gym', id: 12, redeliveryOfId: null })).toEqual({
      ...promptPayload(prompt),
      kind: 'gym',
      work_id: 'gym-12',
    });
    expect(workPayload({ ...prompt, sandbox }, { kind: 'sandbox', id: 9, redeliveryOfId: 4 })).toEqual({
      ...promptPayload(prompt),
      kind: 'sandbox',
      work_id: 'sandbox-9',
      redelivery_of: 'sandbox-4',
      sandbox,
    });
  });
});

describe('assertCanTakeDelivery', () => {
  const facts = { mode: 'push' as const, deactivated: false, pingOk: true, pingError: null };
  const refusal = (agent: Parameters<typeof assertCanTakeDelivery>[0]) => {
    try {
      assertCanTakeDelivery(agent);
      return undefined;
    } catch (err) {
      return err instanceof ArenaError ? { kind: err.kind, detail: err.detail } : err;
    }
  };

  it('takes an active push agent and a pull agent whatever its ping', () => {
    expect(refusal(facts)).toBeUndefined();
    expect(refusal({ ...facts, mode: 'pull', pingOk: false, pingError: 'timeout' })).toBeUndefined();
  });

  it('refuses a deactivated agent, then a push agent whose last ping failed, as conflicts', () => {
    expect(refusal({ ...facts, deactivated: true, pingOk: false })).toEqual({
      kind: 'conflict',
      detail: 'agent is deactivated',
    });
    expect(refusal({ ...facts, pingOk: false, pingError: 'connection refused' })).toEqual({
      kind: 'conflict',
      detail: 'agent is not active: its last ping failed (connection refused); fix the webhook and retest',
    });
  });
});

describe("reading a push agent's answer", () => {
  it('a 2xx JSON object with a string response is the answer', () => {
    expect(interpretPushResponse(200, '{"response":"hi"}')).toEqual({ ok: true, response: 'hi' });
    expect(interpretPushResponse(201, '{"response":"hi","extra":1}')).toEqual({ ok: true, response: 'hi' });
  });

  it.each([
    ['a status outside 2xx', 500, '{"response":"hi"}', 'the webhook answered HTTP 500'],
    ['a body that is not JSON', 200, 'hi', 'not JSON'],
    ['JSON that is not an object', 200, '["hi"]', 'not an object'],
    ['no response field', 200, '{"answer":"hi"}', 'without a "response" field'],
    ['a response that is not a string', 200, '{"response":7}', 'not a string'],
    ['a blank response', 200, '{"response":"  "}', 'empty'],
    ['a response over the limit', 200, JSON.stringify({ response: 'x'.repeat(200_001) }), 'longer than'],
  ])('%s is an error the owner can act on', (_case, status, body, error) => {
    const answer = interpretPushResponse(status, body);
    expect(answer.ok).toBe(false);
    expect(answer.ok ? '' : answer.error).toContain(error);
  });
});
