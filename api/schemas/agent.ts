/** Agents: creation and edits as SPEC lists them, and the views the owner gets back. */
import { z } from 'zod';
import { optionalText, timestamp } from './common';

const name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const webhookUrl = z.string().max(2048, 'must be at most 2048 characters');
const tools = z.array(z.string().trim().min(1).max(100)).max(50, 'at most 50 tools');

export const agentCreate = z
  .object({
    name,
    mode: z.enum(['push', 'pull']).default('push'),
    webhook_url: webhookUrl.optional(),
    owner_handle: optionalText(100).optional(),
    model_claimed: optionalText(200).optional(),
    cost_claimed: optionalText(200).optional(),
    tools_claimed: tools.optional(),
    description: optionalText(500).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.mode === 'push' && !body.webhook_url) {
      ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'is required for push agents' });
    }
    if (body.mode === 'pull' && body.webhook_url !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'must be omitted for pull agents' });
    }
  });

export const agentPatch = z.object({
  name: name.optional(),
  webhook_url: webhookUrl.optional(),
  owner_handle: optionalText(100).optional(),
  model_claimed: optionalText(200).optional(),
  cost_claimed: optionalText(200).optional(),
  tools_claimed: tools.optional(),
  description: optionalText(500).optional(),
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
  mode: z.enum(['push', 'pull']),
  webhook_url: z.string().optional(),
  active: z.boolean(),
  ping_error: z.string().nullable(),
  webhook_secret: z.string().describe('shown once'),
  profile_url: z.string(),
  run_command: z.string().optional().describe('pull agents only'),
});

export const agentListItem = z.object({
  id: z.number().int(),
  name: z.string(),
  mode: z.enum(['push', 'pull']),
  webhook_url: z.string().optional(),
  active: z.boolean(),
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
