/** What the API needs from the outside world, built once by the server (or a test) and injected. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { DestinationStream } from 'pino';
import type { Client } from '@temporalio/client';
import type { Config } from '../infra/config';
import type { WebhookClient } from '../infra/webhook/client';
import type { OpenidClientLoader } from './web/auth/oidc-client';
import type { AccountOfKey } from './plugins/auth';
import type { WorkNotifier } from './work-notifier';

export interface AppDeps {
  config: Config & { encryptionKey: Buffer };
  orm: MikroORM;
  /** The Temporal client workflows are started and steered with; the health check asks its connection. */
  temporal: Client;
  /**
   * Wakes this process's long-polls when pull work is queued (one LISTEN connection). The caller
   * starts and closes it; tests that hold no long-poll pass a stand-in.
   */
  notifier: Pick<WorkNotifier, 'subscribe' | 'unsubscribe'>;
  /**
   * `temporal` is on the connection of a worker in this process (the embedded stack): deliveries and
   * votes are started eagerly, their first workflow task handed to that worker in the start's reply.
   */
  eagerStart?: boolean;
  webhooks: WebhookClient;
  /** Ping timeout; tests shorten it. */
  pingTimeoutMs?: number;
  /** Bound on starting or cancelling a workflow (default 10 s); tests shorten it. */
  workflowCallTimeoutMs?: number;
  /** How often an MCP tool call still running sends progress (default 10 s); tests shorten it. */
  mcpProgressIntervalMs?: number;
  /** How often an MCP answer's stream carries a keep-alive comment (default 4 s); tests shorten it. */
  mcpKeepAliveMs?: number;
  /** How openid-client (ES modules only) is loaded for website sign-in; the default is a native import(). */
  loadOpenidClient?: OpenidClientLoader;
  /**
   * Now, for the times the API alone keeps (web sessions, website sign-in's pending cookie, how the
   * pages say when something happened): the system clock by default; tests move it. Rules the
   * worker shares (leases, judging windows, daily vote limits) use PostgreSQL's now().
   */
  clock?: () => Date;
  /**
   * How an API key becomes its account: the stored keys by default. The unit project's offline app
   * passes a stand-in, so requests get past authentication to the checks that need no database.
   */
  accountOfKey?: AccountOfKey;
  /** Where the log lines go (stdout by default); tests capture them. */
  logStream?: DestinationStream;
  /** The folder served under /downloads/ (default: the build's downloads/, beside the compiled server). */
  downloadsDir?: string;
}
