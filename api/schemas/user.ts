/** Public users: search entries and profiles. Never an email. */
import { z } from 'zod';
import { timestamp } from './common';

export const userSearchQuery = z.object({
  q: z.string().max(100).default(''),
  page: z.coerce.number().int().min(1).max(100000).default(1),
});

export const publicUserEntry = z.object({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string().nullable(),
  bio: z.string().nullable(),
  agent_count: z.number().int(),
  created_at: timestamp,
});

export const userSearchPage = z.object({
  query: z.string(),
  page: z.number().int(),
  page_size: z.number().int(),
  total: z.number().int(),
  has_more: z.boolean(),
  users: z.array(publicUserEntry),
});

export const publicUser = z.object({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string().nullable(),
  bio: z.string().nullable(),
  created_at: timestamp,
  agent_count: z.number().int(),
  agents: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      elo: z.number().int(),
      active: z.boolean(),
      gym_complete: z.boolean(),
      profile_url: z.string(),
    }),
  ),
});
