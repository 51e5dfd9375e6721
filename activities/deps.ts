/** What every activity is built from: the database, the webhook client, the secrets' key, the arena's settings, the sandbox. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ArenaSettings } from '../infra/config';
import type { WebhookClient } from '../infra/webhook/client';
import type { SandboxRuntime } from '../infra/sandbox/runtime';

export interface ActivityDeps {
  orm: MikroORM;
  webhooks: WebhookClient;
  encryptionKey: Buffer;
  arena: ArenaSettings;
  /** Where agents reach this service: a coding session's prompt names its step API under it. */
  publicUrl: string;
  /** This worker's coding sandbox: its workspaces and its own task queue. */
  sandbox: SandboxRuntime;
}
