/** Agents: creation and edits as SPEC lists them, and the views the owner gets back. */
import { z } from 'zod';
import { AGENT_MODES } from '../../domain/agent-state';
import { optionalText, timestamp } from './common';
import { WEBHOOK_URL_PATTERN, WEBHOOK_URL_RULE } from './webhook-url';

const name = z.string().trim().min(1).max(100);
const webhookUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required for push agents' : undefined) })
  .max(2048)
  .regex(WEBHOOK_URL_PATTERN, WEBHOOK_URL_RULE);
const agentCardUrl = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required for a2a agents' : undefined) })
  .max(2048)
  .regex(WEBHOOK_URL_PATTERN, 'must be an http or https URL, such as https://agent.example/.well-known/agent-card.json')
  .describe("the agent card's URL (A2A 1.0 or 0.3); the arena reads it and calls the JSON-RPC interface it names");
const tools = z.array(z.string().trim().min(1).max(100)).max(50);

/** What an agent describes about itself, the same in both modes. */
const agentClaims = {
  name,
  owner_handle: optionalText(100)
    .optional()
    .describe("this agent's own public owner name; null or omitted: the account's name (display name, else username)"),
  model_claimed: optionalText(200).optional(),
  cost_claimed: optionalText(200).optional(),
  tools_claimed: tools.optional(),
  description: optionalText(500).optional(),
};

/**
 * A union on `mode`, so the document says what is enforced: a push agent (the default) needs a
 * webhook_url, a pull agent has no address, an a2a agent needs its agent card's URL.
 */
export const agentCreate = z.discriminatedUnion('mode', [
  z.object({
    ...agentClaims,
    mode: z.literal('push').default('push'),
    webhook_url: webhookUrl,
    agent_card_url: z.never({ error: 'is for a2a agents only' }).optional(),
  }),
  z.object({
    ...agentClaims,
    mode: z.literal('pull'),
    webhook_url: z.never({ error: 'must be omitted for pull agents' }).optional(),
    agent_card_url: z.never({ error: 'is for a2a agents only' }).optional(),
  }),
  z.object({
    ...agentClaims,
    mode: z.literal('a2a'),
    agent_card_url: agentCardUrl,
    webhook_url: z.never({ error: 'must be omitted for a2a agents; the agent card names where to call' }).optional(),
  }),
]);

export const agentPatch = z.object({
  ...agentClaims,
  name: name.optional(),
  webhook_url: webhookUrl.optional().describe('push agents only; other agents answer 409'),
  agent_card_url: agentCardUrl.optional().describe('a2a agents only; other agents answer 409'),
});

export const gymProgress = z.object({
  total: z.number().int(),
  done: z.number().int(),
  errors: z.number().int(),
  gym_complete: z.boolean(),
  started_at: timestamp.nullable(),
  completed_at: timestamp.nullable(),
});

export const agentCreated = z.object({
  id: z.number().int(),
  name: z.string(),
  mode: z.enum(AGENT_MODES),
  owner_handle: z.string().describe("the public owner name: on the agent's page, the leaderboard and after votes"),
  owner_handle_note: z.string().describe('where the owner name came from and how to change it'),
  webhook_url: z.string().optional(),
  agent_card_url: z.string().optional().describe('a2a agents only'),
  active: z.boolean(),
  ping_error: z.string().nullable(),
  webhook_secret: z.string().describe('shown once'),
  profile_url: z.string(),
  run_command: z.string().optional().describe('pull agents only'),
});

export const agentListItem = z.object({
  id: z.number().int(),
  name: z.string(),
  mode: z.enum(AGENT_MODES),
  webhook_url: z.string().optional(),
  agent_card_url: z.string().optional().describe('a2a agents only'),
  active: z.boolean(),
  online: z
    .boolean()
    .describe(
      'can answer now: a pull agent whose runner polled within the last minute, a push agent whose last ping or delivery succeeded; live battles and the main dispatch pick online agents',
    ),
  last_seen: timestamp
    .nullable()
    .describe('when the agent last polled, posted a result, passed a ping or answered; null if never'),
  ping_error: z.string().nullable(),
  elo: z.number().int(),
  model_claimed: z.string().nullable(),
  created_at: timestamp,
  gym_complete: z.boolean(),
});

export const agentDetail = agentListItem.extend({
  owner_handle: z.string(),
  cost_claimed: z.string().nullable(),
  tools_claimed: z.array(z.string()),
  description: z.string().nullable(),
  profile_url: z.string(),
  run_command: z.string().optional(),
  gym: gymProgress,
});

export const retestResult = z.object({ id: z.number().int(), active: z.boolean(), ping_error: z.string().nullable() });
export const secretResult = z.object({ id: z.number().int(), webhook_secret: z.string() });
export const deactivateResult = z.object({ id: z.number().int(), active: z.literal(false) });
