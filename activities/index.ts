/** Every activity the worker runs: all side effects of the workflows (webhook calls, database writes). */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { WebhookClient } from '../infra/webhook/client';
import { deliveryActivities } from './deliveries';
import { gymActivities } from './gym';

export interface ActivityDeps {
  orm: MikroORM;
  webhooks: WebhookClient;
  encryptionKey: Buffer;
}

export function createActivities(deps: ActivityDeps) {
  return { ...deliveryActivities(deps), ...gymActivities(deps) };
}
