/** Servers and clients for webhook client tests, all closed after each test so jest exits cleanly. */
import { WebhookClient, type WebhookClientOptions, type WebhookResult } from '../../../infra/webhook/client';
import { startServer, type LoopbackServer } from './loopback-server';

export const secret = 'agsec_test_secret_value';
export const promptBody = JSON.stringify({
  prompt_id: 'p-9',
  prompt: 'Say hi',
  category: 'chat',
  deadline_seconds: 300,
});

export interface WebhookFixtures {
  server(...args: Parameters<typeof startServer>): Promise<LoopbackServer>;
  client(opts?: WebhookClientOptions): WebhookClient;
  post(
    client: WebhookClient,
    url: string,
    extra?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<WebhookResult>;
}

export function useWebhookFixtures(): WebhookFixtures {
  let servers: LoopbackServer[] = [];
  let clients: WebhookClient[] = [];

  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(servers.map((s) => s.close()));
    clients = [];
    servers = [];
  });

  return {
    async server(...args) {
      const started = await startServer(...args);
      servers.push(started);
      return started;
    },
    client(opts = { allowPrivate: true }) {
      const created = new WebhookClient(opts);
      clients.push(created);
      return created;
    },
    post(client, url, extra = {}) {
      return client.post({
        url,
        body: promptBody,
        secret,
        deliveryId: 'main-42',
        timeoutMs: extra.timeoutMs ?? 5000,
        signal: extra.signal,
      });
    },
  };
}
