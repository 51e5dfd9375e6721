/** API keys as their owner lists, issues and revokes them. */
import { z } from 'zod';
import { timestamp } from './common';

export const apiKeyEntry = z.object({
  id: z.number().int(),
  prefix: z
    .string()
    .nullable()
    .describe('The first characters of the key, to tell keys apart; null for keys issued before prefixes were kept'),
  created_at: timestamp,
  last_used_at: timestamp.nullable().describe('When the key last authenticated a request; null if never'),
});

export const apiKeyIssued = apiKeyEntry.extend({
  api_key: z.string().describe('Bearer key, shown once'),
  message: z.string(),
});
