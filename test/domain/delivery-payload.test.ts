import { promptPayload, workPayload } from '../../domain/delivery-payload';
import { assertCanTakeDelivery } from '../../domain/agent-state';
import { ArenaError } from '../../domain/errors';

const prompt = { promptId: 7, text: 'Say hi', category: 'writing', deadlineSeconds: 60 };
const sandbox = {
  session_id: 'sandbox-9',
  api: 'https://arena.example/api/agents/3/sandbox/sandbox-9',
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
