/** Accounts: registration result, the private account view and its edits. */
import { z } from 'zod';
import { USERNAME_PATTERN, USERNAME_RULE } from '../../domain/username';
import { PASSWORD_MAX, PASSWORD_MIN, PASSWORD_RULE } from '../../services/passwords';
import type { AccountEdit } from '../../services/account';
import { timestamp, optionalText } from './common';

export const registration = z.object({
  api_key: z.string().describe('Bearer key, shown once'),
  user_id: z.number().int(),
  username: z.string(),
  message: z.string(),
});

export const agentSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  active: z.boolean(),
  elo: z.number().int(),
  gym_complete: z.boolean(),
});

export const account = z.object({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string().nullable(),
  email: z.string().nullable(),
  bio: z.string().nullable(),
  created_at: timestamp,
  agent_count: z.number().int(),
  agents: z.array(agentSummary),
});

export const accountPatch = z.object({
  display_name: optionalText(100)
    .optional()
    .describe('your public name, and the owner name of every agent of yours without its own (null: your username)'),
  bio: optionalText(1000).optional(),
  // Upper case is allowed: names are stored lowercase.
  username: z
    .string()
    .regex(USERNAME_PATTERN, `must be ${USERNAME_RULE}`)
    .describe(`${USERNAME_RULE}; stored lowercase`)
    .optional(),
  // A pattern, not the `email` format: the document then says exactly what the API takes (the
  // format's validators and this check disagree on corner cases such as a label ending in '-').
  email: z
    .string()
    .max(320, 'must be at most 320 characters')
    .regex(z.regexes.email, 'must be a valid email address')
    .describe('the email the website signs you in with (with a password: PUT /api/account/password); stored lowercase')
    .optional(),
}) satisfies z.ZodType<AccountEdit>;

export const passwordPut = z
  .object({
    // Counted in characters (code points), as JSON Schema counts a length and as the check does.
    password: z
      .string()
      .meta({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX })
      .describe(`the new password: ${PASSWORD_RULE}`),
    current_password: z
      .string()
      .optional()
      .describe('required when the account already has a password; not needed to set the first one'),
  })
  .strict();

export const passwordSet = z.object({
  password_set: z.literal(true),
  sign_in: z.string().describe('where to sign in on the website, with the account email and this password'),
});
